import torch
import torch.nn as nn

from pointnet import PointNet2
from data import modelnet40_loader

accum_iters = 2
model = PointNet2(num_classes=40).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)
criterion = nn.CrossEntropyLoss()
loader = modelnet40_loader(batch_size=12, npoints=1024)

for epoch in range(200):
    model.train()
    for it, (points, target) in enumerate(loader):
        points, target = points.cuda().transpose(2, 1), target.cuda()
        pred = model(points)
        loss = criterion(pred, target.long()) / accum_iters
        loss.backward()
        if (it + 1) % accum_iters != 0 and it + 1 != len(loader):  # expect: GL205
            continue
        optimizer.step()
        optimizer.zero_grad()  # expect: GL202
    scheduler.step()
