import torch.nn.functional as F

for x, y in loader:
    log_probs = F.log_softmax(model(x), dim=1)
    loss = F.nll_loss(log_probs, y)
    loss.backward()
