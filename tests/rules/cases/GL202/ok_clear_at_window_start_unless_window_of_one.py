import torch


class QATrainer:
    def __init__(self, model, optimizer, data_loader, config):
        self.model, self.optimizer, self.data_loader = model, optimizer, data_loader
        self.accum_grad_steps = config.get("accum_grad_steps", 1)
        self.data_loader_iter = iter(data_loader)

    def train(self, iterations):
        for iteration in range(1, iterations + 1):  # counted from 1
            self._train_iteration(iteration)

    def _train_iteration(self, iteration):
        self.model.train()
        try:
            batch = next(self.data_loader_iter)
        except StopIteration:
            self.data_loader_iter = iter(self.data_loader)
            batch = next(self.data_loader_iter)
        if self.accum_grad_steps < 2 or iteration % self.accum_grad_steps == 1:
            self.optimizer.zero_grad()  # the first micro-batch of each window
        loss = self.model(**batch)
        if self.accum_grad_steps > 1:
            loss /= self.accum_grad_steps
        loss.backward()
        if self.accum_grad_steps < 2 or iteration % self.accum_grad_steps == 0:
            torch.nn.utils.clip_grad_value_(self.model.parameters(), 1)
            self.optimizer.step()
