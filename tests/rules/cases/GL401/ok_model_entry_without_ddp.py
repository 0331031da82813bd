import torch


class ModelEntry:
    def __init__(self, model, name):
        self.model = model
        self.name = name


class Runner:
    """Entries hold plain modules: a single-process run, nothing to all-reduce."""

    def __init__(self, args, downstream):
        self.args = args
        self.downstream = self._init_model(downstream.to(args.device), "Downstream")

    def _init_model(self, model, name):
        return ModelEntry(model, name)

    def train(self, dataloader, optimizer, accum_steps):
        backward_steps = 0
        for epoch in range(self.args.epochs):
            for wavs, labels in dataloader:
                loss = self.downstream.model(wavs, labels) / accum_steps
                loss.backward()
                backward_steps += 1
                if backward_steps % accum_steps > 0:
                    continue
                optimizer.step()
                optimizer.zero_grad()
