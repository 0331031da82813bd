import torch

optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.999)
updates = 0
while updates < max_updates:
    scheduler.step()  # expect: GL106
    loss = ppo_loss(policy, buffer.sample(256))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    updates += 1
