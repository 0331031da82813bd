import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for i, (x, y) in enumerate(batches):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if i % 100 == 0:
        print(i, loss.item())
