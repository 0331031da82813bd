import torch

for batch in loader:
    losses = []
    for head, target in zip(heads, batch["targets"]):
        loss = loss_fn(head(batch["features"]), target)
        losses.append(loss)
    optimizer.zero_grad()
    torch.stack(losses).sum().backward()
    optimizer.step()
