"""An RL fine-tuning update for a dialogue agent: after the backward it clears the gradients of
two parts of the model to keep them frozen (the latent clusters, the language model), clips
the whole model and steps. The step's own clear ran before the backward."""

import numpy as np
import torch
from torch import nn


class LatentClusteringRlAgent:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.opt = torch.optim.SGD(self.model.parameters(), lr=args.rl_lr, momentum=args.momentum)
        self.logprobs = []
        self.all_rewards = []

    def update(self, agree, max_reward):
        reward = max_reward if agree else 0
        self.all_rewards.append(reward)
        r = (reward - np.mean(self.all_rewards)) / max(1e-4, np.std(self.all_rewards))
        g = torch.zeros(1, 1).fill_(r)
        rewards = []
        for _ in self.logprobs:
            rewards.insert(0, g)
            g = g * self.args.gamma
        loss = 0
        for lp, r in zip(self.logprobs, rewards):
            loss -= lp * r
        self.opt.zero_grad()
        loss.backward()
        self.model.latent_bottleneck.zero_grad()
        self.model.lang_model.zero_grad()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.args.rl_clip)
        self.opt.step()
