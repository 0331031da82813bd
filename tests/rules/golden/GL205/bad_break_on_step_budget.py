import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
global_step = 0
for epoch in range(num_epochs):
    for batch_idx, (input_batch, target_batch) in enumerate(train_loader):
        loss = calc_loss_batch(input_batch, target_batch, model) / accumulation_steps
        loss.backward()
        if batch_idx % accumulation_steps == 0 or batch_idx + 1 == len(train_loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
        global_step += 1
        if max_steps is not None and global_step > max_steps:
            break
