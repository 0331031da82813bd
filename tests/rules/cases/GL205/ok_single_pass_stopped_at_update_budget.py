import torch

model = torch.nn.Linear(16, 16)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
accum = 8
max_train_steps = 1000

# one pass over an endless stream of packed sequences, stopped at a number of updates
model.train()
completed_steps = 0
for step, batch in enumerate(train_dataloader, start=1):
    loss = torch.nn.functional.mse_loss(model(batch), batch) / accum
    loss.backward()
    if step % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        completed_steps += 1
    if completed_steps >= max_train_steps:
        break
