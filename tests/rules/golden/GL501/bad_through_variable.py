import torch
import torch.nn.functional as F

for x, y in loader:
    optimizer.zero_grad()
    logits = model(x)
    probs = F.softmax(logits, dim=1)
    loss = F.nll_loss(F.log_softmax(logits, dim=1), y)  # expect: GL501
    loss.backward()
    optimizer.step()
    acc = (probs.argmax(1) == y).float().mean()
