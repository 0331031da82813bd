import torch

optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
updates = 0
while updates < max_updates:
    batch = buffer.sample(256)
    loss = td_loss(policy, target_net, batch)
    loss.backward()
    optimizer.step()  # expect: GL104
    updates += 1
