import torch
import torch.nn.functional as F

from model import ConvNeXt
from data import get_train_loader

grad_accum = 16
model = ConvNeXt(depths=(3, 3, 9, 3), dims=(96, 192, 384, 768), num_classes=1000)
optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.05)
loader = get_train_loader(batch_size=32)

for epoch in range(300):
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()  # expect: GL201
        boundary = (step + 1) % grad_accum == 0
        if not boundary:  # expect: GL205
            continue
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
