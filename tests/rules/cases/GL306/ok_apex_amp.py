import torch
from apex import amp  # not torch.cuda.amp

model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
for x, y in loader:
    loss = criterion(model(x), y)
    with amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
    optimizer.step()
    optimizer.zero_grad()
