import torch.nn as nn
import torch.nn.functional as F


def distillation_loss(student_logits, labels, teacher_logits, T, alpha):
    soft = nn.KLDivLoss(reduction="batchmean")(
        F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1)
    ) * T * T
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1.0 - alpha) * hard, soft, hard


def train_student(args, student, teacher, loader, optimizer):
    student.train()
    teacher.eval()
    for step, (input_ids, mask, labels) in enumerate(loader):
        logits = student(input_ids, attention_mask=mask)
        teacher_logits = teacher(input_ids, attention_mask=mask).detach()
        loss, kd_loss, ce_loss = distillation_loss(logits, labels, teacher_logits, T=args.T, alpha=args.alpha)
        loss.backward()  # expect: GL201
        if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
