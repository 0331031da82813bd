import torch
import torch.nn as nn

from models import DenseNet121
from data import chexpert_loader

accum_steps = 4
model = DenseNet121(num_classes=14).cuda()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
loader = chexpert_loader(batch_size=16)

for epoch in range(3):
    for i, (images, labels) in enumerate(loader):
        loss = criterion(model(images.cuda()), labels.cuda())
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            # average the summed gradients of the window instead of scaling every loss
            for p in model.parameters():
                if p.grad is not None:
                    p.grad /= accum_steps
            optimizer.step()
            optimizer.zero_grad()
