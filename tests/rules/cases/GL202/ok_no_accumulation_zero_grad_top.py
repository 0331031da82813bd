import torch
import torch.nn as nn

from pointnet import PointNet2
from data import modelnet40_loader

log_every = 20
model = PointNet2(num_classes=40).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)
criterion = nn.CrossEntropyLoss()
loader = modelnet40_loader(batch_size=24, npoints=1024)

for epoch in range(200):
    model.train()
    for it, (points, target) in enumerate(loader):
        optimizer.zero_grad()
        points, target = points.cuda().transpose(2, 1), target.cuda()
        loss = criterion(model(points), target.long())
        loss.backward()
        optimizer.step()
        if it % log_every == 0:
            print(f"epoch {epoch} it {it}: loss {loss.item():.4f}")
    scheduler.step()
