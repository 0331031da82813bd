"""A DQN notebook: the update helper runs backward and returns the loss tensor itself, and the
episode loop adds it to a running total for the log."""
import torch
import torch.nn.functional as F


def optimize_dqn(policy_net, target_net, optimizer, batch, gamma=0.99):
    states, actions, rewards, next_states, dones = batch
    q = policy_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        target = rewards + gamma * target_net(next_states).max(1).values * (1 - dones)
    loss = F.smooth_l1_loss(q, target)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss


def run(policy_net, target_net, optimizer, memory, episodes, steps):
    for episode in range(episodes):
        episode_loss = 0
        for t in range(steps):
            batch = memory.sample(128)
            episode_loss += optimize_dqn(policy_net, target_net, optimizer, batch).item()  # expect: GL601
        print(episode, episode_loss / steps)
