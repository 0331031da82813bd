import torch


def backward_pass(loss):
    loss.backward()
    return loss.item()


optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    optimizer.zero_grad()
    value = backward_pass(criterion(model(x), y))
    optimizer.step()
