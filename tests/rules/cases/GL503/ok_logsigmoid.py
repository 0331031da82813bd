import torch.nn.functional as F


def dpo_loss(chosen_logratios, rejected_logratios, beta=0.1):
    # the sigmoid lives inside logsigmoid, computed stably
    return -F.logsigmoid(beta * (chosen_logratios - rejected_logratios)).mean()
