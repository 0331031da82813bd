import torch

probs = torch.softmax(logits, dim=1)
log_probs = torch.log(probs.clamp(min=1e-12))
loss = -(targets * log_probs).sum(1).mean()
