loss_accum = 0.0
for step, (x, y) in enumerate(loader):
    loss = compute_loss(model, x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_accum += loss.item()  # expect: GL601
    if (step + 1) % log_interval == 0:
        print(f"step {step + 1}: loss {loss_accum / log_interval:.4f}")
        loss_accum = 0.0
