import torch
from torch import nn
from tqdm import tqdm


class Trainer:
    def __init__(self, model, train_dataloader, optimizer, grad_accumulation_steps=None, clip_grad_norm=None):
        self.model = model
        self.train_dataloader = train_dataloader
        self.optimizer = optimizer
        self.grad_accumulation_steps = grad_accumulation_steps
        self.clip_grad_norm = clip_grad_norm

    def _train_step(self, idx, batch):
        inputs, targets = batch
        loss = nn.functional.cross_entropy(self.model(inputs).flatten(0, 1), targets.flatten())
        loss.backward()  # expect: GL201
        if self.clip_grad_norm:
            nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=self.clip_grad_norm)  # expect: GL203
        # every step when no accumulation is asked for, else every n-th
        if not self.grad_accumulation_steps or idx % self.grad_accumulation_steps == 0:  # expect: GL205
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
        return loss

    def train(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            loop = tqdm(self.train_dataloader)
            for idx, batch in enumerate(loop, start=1):
                loss = self._train_step(idx, batch)
                loop.set_postfix(loss=loss.item())
