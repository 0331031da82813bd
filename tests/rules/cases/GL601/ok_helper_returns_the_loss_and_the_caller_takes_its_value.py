"""The update helper returns its loss tensor; the loop adds the number it holds."""
import torch.nn.functional as F


def optimize_dqn(policy_net, optimizer, states, targets):
    loss = F.smooth_l1_loss(policy_net(states), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def run(policy_net, optimizer, memory, episodes, steps):
    for episode in range(episodes):
        episode_loss = 0.0
        for t in range(steps):
            states, targets = memory.sample(128)
            episode_loss += optimize_dqn(policy_net, optimizer, states, targets).item()
        print(episode, episode_loss / steps)
