import torch
import torch.nn.functional as F


def distillation_loss(student_logits, teacher_logits, T=4.0):
    student = torch.log(F.softmax(student_logits / T, dim=1))  # expect: GL501
    teacher = F.softmax(teacher_logits / T, dim=1)
    return F.kl_div(student, teacher, reduction="batchmean") * T * T
