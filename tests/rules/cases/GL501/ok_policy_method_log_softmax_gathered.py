import torch
import torch.nn as nn
import torch.nn.functional as F


class Policy(nn.Module):
    def __init__(self, n_obs, n_actions):
        super().__init__()
        self.body = nn.Linear(n_obs, 128)
        self.head = nn.Linear(128, n_actions)

    def log_pi(self, x):
        return F.log_softmax(self.head(F.relu(self.body(x))), dim=-1)

    def pi(self, x, greedy=False):
        logits = self.head(F.relu(self.body(x)))
        if greedy:
            return logits
        return F.softmax(logits, dim=-1)


def reinforce_update(policy, optimizer, states, actions, returns):
    """The log-probabilities come from log_softmax; `pi` has two returns (logits or probabilities),
    so what its log would be is not one thing."""
    log_probs = policy.log_pi(states).gather(1, actions)
    entropy_terms = torch.log(policy.pi(states, greedy=True).sigmoid())
    loss = -(log_probs * returns).mean() - 0.01 * entropy_terms.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
