import torch
import torch.nn as nn

policy = nn.Sequential(nn.Linear(4, 128), nn.ReLU(), nn.Linear(128, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)

for episode in range(1000):
    states, actions, returns = run_episode(env, policy)
    probs = policy(torch.stack(states))
    log_probs = torch.log(probs)  # expect: GL501
    chosen = log_probs.gather(1, torch.tensor(actions)[:, None]).squeeze(1)
    loss = -(chosen * torch.tensor(returns)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
