"""A policy-gradient loop that accumulates four rollouts per update, clips before the step, and
after it reads the gradient norm for its logs with an infinite threshold: that call clips
nothing (it only returns the total norm), so neither its place after the step nor its running
on every micro-batch matters."""
import math

import torch
import torch.nn.functional as F

policy = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 4))
optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-5)
accumulation = 4
history = []

for round_num in range(1000):
    states = torch.randn(8, 16)
    actions = torch.randint(0, 4, (8,))
    advantages = torch.randn(8)
    log_probs = F.log_softmax(policy(states), dim=-1).gather(1, actions[:, None]).squeeze(1)
    loss = -(log_probs * advantages).mean() / accumulation
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(policy.parameters(), float("inf")).item()
    if (round_num + 1) % accumulation == 0:
        torch.nn.utils.clip_grad_norm_(policy.parameters(), max_norm=1.0)
        optimizer.step()
        total_norm = torch.nn.utils.clip_grad_norm_(policy.parameters(), max_norm=math.inf)
        optimizer.zero_grad()
        history.append((grad_norm, float(total_norm)))
