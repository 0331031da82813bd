import torch
from apex.parallel import DistributedDataParallel as DDP

model = DDP(build_model().cuda(), delay_allreduce=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
for i, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()) / accum
    loss.backward()
    if (i + 1) % accum == 0:  # expect: GL205
        optimizer.step()
        optimizer.zero_grad()
