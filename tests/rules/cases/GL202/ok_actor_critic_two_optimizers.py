import torch
import torch.nn.functional as F

from rl.nets import Actor, Critic
from rl.buffer import ReplayBuffer

actor, critic = Actor(obs_dim=17, act_dim=6), Critic(obs_dim=17, act_dim=6)
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)
buffer = ReplayBuffer.load("halfcheetah.pt")
gamma = 0.99

for update in range(100_000):
    obs, act, rew, next_obs, done = buffer.sample(256)
    with torch.no_grad():
        target_q = rew + gamma * (1 - done) * critic(next_obs, actor(next_obs))
    critic_opt.zero_grad()
    critic_loss = F.mse_loss(critic(obs, act), target_q)
    critic_loss.backward()
    critic_opt.step()
    if update % 2 == 0:
        # delayed policy update: the actor's own grads are cleared right before its own step
        actor_opt.zero_grad()
        actor_loss = -critic(obs, actor(obs)).mean()
        actor_loss.backward()
        actor_opt.step()
