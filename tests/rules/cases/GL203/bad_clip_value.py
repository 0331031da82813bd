import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
accum = 8
for i, (x, y) in enumerate(batches):
    out = model(x)
    loss = criterion(out, y) / accum
    loss.backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)  # expect: GL203
    if (i + 1) % accum == 0 or i == len(batches) - 1:
        optimizer.step()
        optimizer.zero_grad()
