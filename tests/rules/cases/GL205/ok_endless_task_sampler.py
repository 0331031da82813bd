import random

import torch


class TaskSampler:
    """Draws a task, then a batch of that task, for ever: there is no epoch to end."""

    def __init__(self, loaders, accum_steps=1):
        self.loaders = loaders
        self.iters = {name: iter(loader) for name, loader in loaders.items()}
        self.accum_steps = accum_steps

    def __iter__(self):
        while True:
            name = random.choice(list(self.loaders))
            for _ in range(self.accum_steps):
                try:
                    batch = next(self.iters[name])
                except StopIteration:
                    self.iters[name] = iter(self.loaders[name])
                    batch = next(self.iters[name])
                yield name, batch


class CudaPrefetcher:
    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        for item in self.loader:
            yield item

    def __len__(self):
        return len(self.loader)


def pretrain(model, optimizer, loaders, opts):
    sampler = TaskSampler(loaders, accum_steps=opts.gradient_accumulation_steps)
    sampler = CudaPrefetcher(sampler)
    global_step = 0
    optimizer.zero_grad()
    for step, (task, batch) in enumerate(sampler):
        loss = model(batch, task=task).mean() / opts.gradient_accumulation_steps
        loss.backward()
        if (step + 1) % opts.gradient_accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), opts.grad_norm)
            optimizer.step()
            optimizer.zero_grad()
            global_step += 1
        if global_step >= opts.num_train_steps:
            break
