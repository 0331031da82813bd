import torch

optimizer = torch.optim.LBFGS(model.parameters(), lr=1)
for x, y in loader:
    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
