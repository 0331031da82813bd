import torch
import torch.nn.functional as F


def mutual_information(logits_samples):
    probs = F.softmax(logits_samples, dim=-1)
    mean_probs = probs.mean(0)
    predictive_entropy = -(mean_probs * torch.log(mean_probs)).sum(-1)
    return predictive_entropy - (-(probs * F.log_softmax(logits_samples, dim=-1)).sum(-1)).mean(0)
