import torch

optimizer = torch.optim.LBFGS(model.parameters(), lr=1)
for x, y in loader:
    def closure():
        optimizer.zero_grad()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
