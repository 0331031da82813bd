import torch
import torch.nn.functional as F

from envs import make_regression_loader
from nets import MLPRegressor

max_steps = 20_000
loader = make_regression_loader(batch_size=256)
model = MLPRegressor(in_dim=32, hidden=256, out_dim=1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

step = 0
data_iter = iter(loader)
while step < max_steps:
    try:
        x, y = next(data_iter)
    except StopIteration:
        data_iter = iter(loader)
        x, y = next(data_iter)
    pred = model(x)
    loss = F.smooth_l1_loss(pred, y)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)  # expect: GL101
    optimizer.step()
    step += 1
    if step % 1000 == 0:
        print(step, loss.item())
