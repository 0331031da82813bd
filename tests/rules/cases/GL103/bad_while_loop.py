import torch

optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
updates = 0
while updates < max_updates:
    batch = buffer.sample(256)
    loss = td_loss(policy, target_net, batch)
    loss.backward()
    optimizer.zero_grad()  # expect: GL103
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 10.0)
    optimizer.step()
    updates += 1
