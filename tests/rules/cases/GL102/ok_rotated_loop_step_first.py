import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss = compute_loss(model, next(batches))
loss.backward()
for batch in batches:
    # step on the previous batch's gradients, then compute the next ones
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    loss = compute_loss(model, batch)
    loss.backward()
