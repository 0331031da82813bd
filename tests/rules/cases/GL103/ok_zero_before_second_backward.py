import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    # a probe backward only for logging the input-gradient norm
    probe = loss_fn(model(x), y)
    probe.backward()
    log_grad_norms(model)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
