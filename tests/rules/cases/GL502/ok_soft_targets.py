import torch.nn.functional as F


def distill(student_logits, teacher_logits, T):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    return F.cross_entropy(student_logits / T, soft_targets) * T * T
