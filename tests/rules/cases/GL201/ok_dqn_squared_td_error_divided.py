"""The DQN learner of the bad case with each sample's TD loss divided by the samples per update."""
import torch
import torch.nn as nn


def train_dqn(q_net, target_net, q_opt, buffer, train_iters=1024, gradient_steps=16, gamma=0.99):
    q_opt.zero_grad()
    for i in range(train_iters):
        obs, actions, rewards, next_obs, dones = buffer.sample(64)
        with torch.no_grad():
            target = rewards + gamma * (1 - dones) * target_net(next_obs).max(1)[0]
        q_values = q_net(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        q_loss = ((q_values - target) ** 2).mean() / gradient_steps
        q_loss.backward()
        if (i + 1) % gradient_steps == 0:
            nn.utils.clip_grad_norm_(q_net.parameters(), 10.0)
            q_opt.step()
            q_opt.zero_grad()


def train_dqn_on_differences(q_net, target_net, q_opt, buffer, train_iters=1024, gradient_steps=16, gamma=0.99):
    q_opt.zero_grad()
    for i in range(train_iters):
        obs, actions, rewards, next_obs, dones = buffer.sample(64)
        with torch.no_grad():
            target = rewards + gamma * (1 - dones) * target_net(next_obs).max(1)[0]
        diff = (q_net(obs).gather(1, actions.unsqueeze(1)).squeeze(1) - target) / gradient_steps ** 0.5
        q_loss = (diff ** 2).mean()
        q_loss.backward()
        if (i + 1) % gradient_steps == 0:
            q_opt.step()
            q_opt.zero_grad()
