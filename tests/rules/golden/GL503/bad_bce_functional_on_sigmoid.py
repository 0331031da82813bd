import torch
import torch.nn.functional as F

for step, (x, y) in enumerate(loader):
    logit = discriminator(x)
    loss = F.binary_cross_entropy_with_logits(logit, y, reduction="mean")  # expect: GL503
    opt.zero_grad()
    loss.backward()
    opt.step()
