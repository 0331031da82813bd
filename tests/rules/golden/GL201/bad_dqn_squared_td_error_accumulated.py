"""A DQN learner that accumulates the TD loss of several replay samples per update: the squared
TD error is averaged over each sample, never divided by the number of samples per step."""
import torch
import torch.nn as nn

from replay import PrioritizedReplay


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=256):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return self.body(obs)


def train_dqn(q_net, target_net, q_opt, buffer, train_iters=1024, gradient_steps=16, gamma=0.99):
    q_opt.zero_grad()
    total_q_loss = 0.0
    for i in range(train_iters):
        obs, actions, rewards, next_obs, dones = buffer.sample(64)
        with torch.no_grad():
            target = rewards + gamma * (1 - dones) * target_net(next_obs).max(1)[0]
        q_values = q_net(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        q_loss = ((q_values - target) ** 2).mean()
        (q_loss / gradient_steps).backward()  # expect: GL201
        if (i + 1) % gradient_steps == 0:
            nn.utils.clip_grad_norm_(q_net.parameters(), 10.0)
            q_opt.step()
            q_opt.zero_grad()
        total_q_loss += q_loss.item() / train_iters
    return total_q_loss


def train_dqn_on_differences(q_net, target_net, q_opt, buffer, train_iters=1024, gradient_steps=16, gamma=0.99):
    q_opt.zero_grad()
    for i in range(train_iters):
        obs, actions, rewards, next_obs, dones = buffer.sample(64)
        with torch.no_grad():
            target = rewards + gamma * (1 - dones) * target_net(next_obs).max(1)[0]
        diff = q_net(obs).gather(1, actions.unsqueeze(1)).squeeze(1) - target
        q_loss = (diff ** 2).mean()
        (q_loss / gradient_steps).backward()  # expect: GL201
        if (i + 1) % gradient_steps == 0:
            q_opt.step()
            q_opt.zero_grad()


def main():
    q_net, target_net = QNetwork(8, 4), QNetwork(8, 4)
    target_net.load_state_dict(q_net.state_dict())
    q_opt = torch.optim.Adam(q_net.parameters(), lr=1e-4)
    for update in range(100):
        train_dqn(q_net, target_net, q_opt, PrioritizedReplay(100_000))
        target_net.load_state_dict(q_net.state_dict())
