import torch
import torch.nn.functional as F


def sample_codes(logits, tau):
    soft_one_hot = F.gumbel_softmax(logits, tau=tau, hard=False)
    return soft_one_hot, torch.log(F.gumbel_softmax(logits, tau=tau))
