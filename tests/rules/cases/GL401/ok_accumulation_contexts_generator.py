from contextlib import ExitStack, contextmanager

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


@contextmanager
def null_context():
    yield


def combine_contexts(contexts):
    @contextmanager
    def multi_contexts():
        with ExitStack() as stack:
            yield [stack.enter_context(ctx()) for ctx in contexts]
    return multi_contexts


def accumulation_contexts(every, is_ddp, ddps):
    """All but the last micro-batch of a window run under every model's no_sync."""
    if is_ddp:
        contexts = [combine_contexts(map(lambda ddp: ddp.no_sync, ddps))] * (every - 1) + [null_context]
    else:
        contexts = [null_context] * every
    for context in contexts:
        with context():
            yield


class Trainer:
    def __init__(self, G, D, g_opt, d_opt, loader, rank, accumulate_every=4):
        self.G = DDP(G, device_ids=[rank])
        self.D = DDP(D, device_ids=[rank])
        self.g_opt, self.d_opt = g_opt, d_opt
        self.loader = iter(loader)
        self.accumulate_every = accumulate_every

    def train_step(self):
        self.d_opt.zero_grad()
        for _ in accumulation_contexts(self.accumulate_every, True, [self.D, self.G]):
            real = next(self.loader)
            fake = self.G(torch.randn(real.shape[0], 128, device=real.device))
            d_loss = (torch.relu(1 + self.D(fake.detach())) + torch.relu(1 - self.D(real))).mean()
            (d_loss / self.accumulate_every).backward()
        self.d_opt.step()

        self.g_opt.zero_grad()
        for _ in accumulation_contexts(self.accumulate_every, True, [self.G, self.D]):
            fake = self.G(torch.randn(8, 128))
            g_loss = -self.D(fake).mean()
            (g_loss / self.accumulate_every).backward()
        self.g_opt.step()
