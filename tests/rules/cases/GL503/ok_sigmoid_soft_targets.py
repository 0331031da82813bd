import torch
import torch.nn.functional as F


def consistency_loss(student_logits, teacher_logits):
    soft = torch.sigmoid(teacher_logits.detach())
    return F.binary_cross_entropy_with_logits(student_logits, soft)
