import torch
from accelerate import Accelerator

accelerator = Accelerator()
model, optimizer, loader, lr_scheduler = accelerator.prepare(model, optimizer, loader, lr_scheduler)
for i, batch in enumerate(loader):
    loss = model(**batch).loss / accum
    loss.backward()  # expect: GL401
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()
    lr_scheduler.step()
