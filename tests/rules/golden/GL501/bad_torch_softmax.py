import torch


def attention_entropy(scores):
    weights = torch.softmax(scores, 1)
    return -(weights * torch.log_softmax(scores, 1)).sum(1)  # expect: GL501
