import torch.nn.functional as F


def kd_loss(student, teacher, T=2.0):
    return F.kl_div(F.log_softmax(student / T, dim=1), F.softmax(teacher / T, dim=1), reduction="batchmean")
