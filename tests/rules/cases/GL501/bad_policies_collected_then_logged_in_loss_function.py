import torch
import torch.nn as nn


class ActorCritic(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=256):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(num_inputs, hidden), nn.ReLU(), nn.Linear(hidden, num_actions), nn.Softmax(dim=1))
        self.critic = nn.Sequential(nn.Linear(num_inputs, hidden), nn.ReLU(), nn.Linear(hidden, num_actions))

    def forward(self, x):
        policy = self.actor(x).clamp(max=1 - 1e-20)
        q_value = self.critic(x)
        value = (policy * q_value).sum(-1, keepdim=True)
        return policy, q_value, value


def compute_loss(policies, q_values, values, actions, retrace):
    loss = 0
    for step in range(len(policies)):
        log_policy_action = policies[step].gather(1, actions[step]).log()  # expect: GL501
        advantage = retrace[step] - values[step]
        entropy = -(policies[step].log() * policies[step]).sum(1).mean(0)  # expect: GL501
        loss = loss - (log_policy_action * advantage.detach()).mean(0) - 1e-4 * entropy
    return loss


def update(model, optimizer, states, actions, retrace):
    policies, q_values, values = [], [], []
    for step in range(states.size(0)):
        policy, q_value, value = model(states[step])
        policies.append(policy)
        q_values.append(q_value)
        values.append(value)
    loss = compute_loss(policies, q_values, values, actions, retrace)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main(env, replay, steps):
    model = ActorCritic(env.observation_space.shape[0], env.action_space.n)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    for _ in range(steps):
        states, actions, retrace = replay.sample()
        update(model, optimizer, states, actions, retrace)
