import torch
import torch.nn.functional as F

from rl.networks import ActorCritic
from rl.buffer import RolloutBuffer


class PPOAgent:
    def __init__(self, env, lr=3e-4, max_grad_norm=0.5, epochs=10):
        self.env = env
        self.policy = ActorCritic(env.observation_space.shape[0], env.action_space.n)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr, eps=1e-5)
        self.max_grad_norm = max_grad_norm
        self.epochs = epochs
        self.buffer = RolloutBuffer(2048)

    def _apply_update(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self._clip()

    def _clip(self):
        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)  # expect: GL101

    def update(self):
        for _ in range(self.epochs):
            for batch in self.buffer.minibatches(64):
                log_probs, values, entropy = self.policy.evaluate(batch.obs, batch.actions)
                ratio = torch.exp(log_probs - batch.old_log_probs)
                clipped = torch.clamp(ratio, 0.8, 1.2) * batch.advantages
                policy_loss = -torch.min(ratio * batch.advantages, clipped).mean()
                value_loss = F.mse_loss(values, batch.returns)
                self._apply_update(policy_loss + 0.5 * value_loss - 0.01 * entropy.mean())
