import torch

probs = torch.softmax(scores, dim=-1)
probs = probs * valid_mask
probs = probs / probs.sum(-1, keepdim=True).clamp(min=1e-6)
log_probs = torch.log(probs)
