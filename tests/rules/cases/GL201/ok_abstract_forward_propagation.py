import torch


class Trainer:
    """The base loop accumulates; each task's subclass computes (and divides) the loss."""

    def __init__(self, args):
        self.accumulation_steps = args.accumulation_steps
        self.total_steps = args.total_steps
        self.report_steps = args.report_steps

    def forward_propagation(self, batch, model):
        raise NotImplementedError

    def train(self, args, loader, model, optimizer, scheduler):
        model.train()
        steps = 1
        loader_iter = iter(loader)
        while steps <= self.total_steps:
            batch = next(loader_iter)
            loss = self.forward_propagation(batch, model)
            loss.backward()
            if steps % self.accumulation_steps == 0:
                optimizer.step()
                scheduler.step()
                model.zero_grad()
            steps += 1


class MlmTrainer(Trainer):
    def forward_propagation(self, batch, model):
        src, tgt, seg = batch
        loss, correct, denominator = model(src, tgt, seg)
        return loss / self.accumulation_steps
