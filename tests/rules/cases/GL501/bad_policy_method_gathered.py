import torch
import torch.nn as nn
import torch.nn.functional as F


class PPO(nn.Module):
    """The policy head returns probabilities; the update takes the log of the chosen action's."""

    def __init__(self, n_obs, n_actions, lr=5e-4):
        super().__init__()
        self.fc1 = nn.Linear(n_obs, 256)
        self.fc_pi = nn.Linear(256, n_actions)
        self.fc_v = nn.Linear(256, 1)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def pi(self, x, softmax_dim=0):
        x = F.relu(self.fc1(x))
        prob = F.softmax(self.fc_pi(x), dim=softmax_dim)
        return prob

    def v(self, x):
        return self.fc_v(F.relu(self.fc1(x)))

    def train_net(self, s, a, advantage, old_prob_a, td_target, eps_clip=0.1, k_epoch=3):
        for _ in range(k_epoch):
            pi = self.pi(s, softmax_dim=1)
            pi_a = pi.gather(1, a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(old_prob_a))  # expect: GL501
            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1 - eps_clip, 1 + eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(self.v(s), td_target.detach())
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()


def a3c_update(global_model, states, actions, returns, optimizer):
    local_model = PPO(4, 2)
    local_model.load_state_dict(global_model.state_dict())
    probs = local_model.pi(states, softmax_dim=1)
    chosen = probs.gather(1, actions)
    advantage = returns - local_model.v(states)
    loss = -torch.log(chosen) * advantage.detach() + F.smooth_l1_loss(local_model.v(states), returns.detach())  # expect: GL501
    optimizer.zero_grad()
    loss.mean().backward()
    optimizer.step()
