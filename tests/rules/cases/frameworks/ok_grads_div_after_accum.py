import torch
import torch.nn.functional as F

from model import PointTransformer
from data import s3dis_loader


def train(accum_steps=4, epochs=100):
    model = PointTransformer(num_classes=13).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    loader = s3dis_loader(batch_size=4)
    for epoch in range(epochs):
        for step, (coords, feats, labels) in enumerate(loader):
            logits = model(coords.cuda(), feats.cuda())
            loss = F.cross_entropy(logits, labels.cuda(), ignore_index=255)
            loss.backward()
            if (step + 1) % accum_steps == 0:  # expect: GL205
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.div_(accum_steps)
                optimizer.step()
                optimizer.zero_grad()
