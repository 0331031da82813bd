import torch

optimizer = torch.optim.RMSprop(policy.parameters(), lr=7e-4)
step = 0
while step < total_steps:
    rollout = collect(env, policy)
    loss = policy_loss(rollout) + 0.5 * value_loss(rollout)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy.parameters(), 0.5)  # expect: GL102
    optimizer.step()
    step += 1
