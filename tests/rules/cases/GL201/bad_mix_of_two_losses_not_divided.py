"""Distillation with a mix of the hard-label and the teacher's loss (shares `p` and `1 - p`),
accumulated over `accum` batches without dividing the mix."""
import torch.nn.functional as F


def train(student, teacher, loader, optimizer, accum, p):
    for step, (x, y) in enumerate(loader):
        logits = student(x)
        hard = F.cross_entropy(logits, y)
        soft = F.kl_div(F.log_softmax(logits, -1), F.softmax(teacher(x), -1), reduction="batchmean")
        loss = hard * p + soft * (1 - p)
        loss.backward()  # expect: GL201
        if (step + 1) % accum == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
