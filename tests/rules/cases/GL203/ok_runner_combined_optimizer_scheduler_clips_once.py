import torch


def backpropagate(loss, optimizer, model, accumulation_steps, max_grad_norm):
    if accumulation_steps > 1:
        loss = loss / accumulation_steps
    loss.backward()
    return loss


class OptimizerScheduler:
    """The optimizer and its learning-rate schedule, stepped together."""

    def __init__(self, optimizer, scheduler):
        self.optimizer = optimizer
        self.scheduler = scheduler

    def step(self):
        self.optimizer.step()
        self.scheduler.step()


class MultiTaskRunner:
    def __init__(self, model, task_sampler, optimizer_scheduler, accumulation_steps=4, max_grad_norm=1.0):
        self.model = model
        self.task_sampler = task_sampler
        self.optimizer_scheduler = optimizer_scheduler
        self.accumulation_steps = accumulation_steps
        self.max_grad_norm = max_grad_norm

    def backpropagate(self, loss):
        return backpropagate(
            loss=loss,
            optimizer=self.optimizer_scheduler.optimizer,
            model=self.model,
            accumulation_steps=self.accumulation_steps,
            max_grad_norm=self.max_grad_norm,
        )

    def train_step(self, loaders):
        self.model.train()
        task = self.task_sampler.pop()
        total = 0.0
        for _ in range(self.accumulation_steps):
            batch = next(loaders[task])
            loss = self.model(batch, task=task).loss
            total += self.backpropagate(loss).item()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
        self.optimizer_scheduler.step()
        self.optimizer_scheduler.optimizer.zero_grad()
        return total / self.accumulation_steps
