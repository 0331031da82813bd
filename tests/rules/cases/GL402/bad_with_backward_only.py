import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[local_rank])
for i, (x, y) in enumerate(loader):
    logits = model(x.cuda())
    loss = F.cross_entropy(logits, y.cuda()) / accum_steps
    if (i + 1) % accum_steps != 0:  # expect: GL205
        with model.no_sync():  # expect: GL402
            loss.backward()
    else:
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
