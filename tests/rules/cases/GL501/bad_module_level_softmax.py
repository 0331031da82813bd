import torch
import torch.nn as nn

softmax = nn.Softmax(dim=-1)


def log_likelihood(decoder, hidden, targets):
    out = decoder(hidden)
    log_p = torch.log(softmax(out))  # expect: GL501
    return log_p.gather(-1, targets.unsqueeze(-1)).sum()
