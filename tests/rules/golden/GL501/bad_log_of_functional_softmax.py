import torch
import torch.nn.functional as F


def sequence_nll(logits, targets, pad_id):
    log_probs = F.log_softmax(logits, dim=-1)  # expect: GL501
    return F.nll_loss(log_probs.transpose(1, 2), targets, ignore_index=pad_id)
