import gym
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, observations, actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(observations, 128), nn.ReLU(), nn.Linear(128, actions))

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


class Agent:
    def __init__(self, env, gamma=0.99):
        self.env = env
        self.gamma = gamma
        self.policy = Policy(env.observation_space.shape[0], env.action_space.n)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)
        self.log_probs, self.rewards = [], []

    def select_action(self, state):
        dist = Categorical(self.policy(torch.as_tensor(state, dtype=torch.float32)))
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action))
        return action.item()

    def run_episode(self):
        state, _ = self.env.reset()
        done = False
        while not done:
            state, reward, terminated, truncated, _ = self.env.step(self.select_action(state))
            self.rewards.append(reward)
            done = terminated or truncated

    def finish_episode(self):
        returns, running = [], 0.0
        for reward in reversed(self.rewards):
            running = reward + self.gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = torch.stack([-lp * r for lp, r in zip(self.log_probs, returns)]).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        episode_reward = sum(self.rewards)
        self.log_probs, self.rewards = [], []
        return episode_reward


def main(episodes=500):
    agent = Agent(gym.make("CartPole-v1"))
    for episode in range(episodes):
        agent.run_episode()
        episode_reward = agent.finish_episode()
        if episode % 10 == 0:
            print(f"episode {episode}: reward {episode_reward:.1f}")
