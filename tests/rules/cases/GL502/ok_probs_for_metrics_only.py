import torch.nn.functional as F

for x, y in loader:
    logits = model(x)
    probs = F.softmax(logits, dim=1)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    confidence = probs.max(1).values.mean()
