import torch
import torch.nn as nn

from model import ConvNeXt
from data import get_train_loader

# accumulation kept in the loop for later experiments, but switched off: one micro-batch per step
accum_steps = 1
model = ConvNeXt(depths=(3, 3, 9, 3), dims=(96, 192, 384, 768), num_classes=1000)
optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.05)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
loader = get_train_loader(batch_size=256)

for epoch in range(300):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
