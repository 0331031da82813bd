import torch

from asr.data import build_dataloader
from asr.models import Speech2Text


class WarmupScheduler:
    """Owns the optimizer: steps it and sets the learning rate of the next step."""

    def __init__(self, optimizer, base_lr, warmup_steps):
        self.optimizer = optimizer
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self._step = 0

    def step(self):
        self._step += 1
        self.optimizer.step()
        lr = self.base_lr * min(1.0, self._step / self.warmup_steps)
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def zero_grad(self):
        self.optimizer.zero_grad()


def main(args):
    model = Speech2Text(args).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = WarmupScheduler(optimizer, args.lr, args.warmup_steps)
    train_set = build_dataloader(args.train_set, args.batch_size)
    accum_n_steps = 0
    for epoch in range(args.n_epochs):
        for batch, is_new_epoch in train_set:
            accum_n_steps += 1
            loss, observation = model(batch)
            loss = loss / args.accum_grad_n_steps
            loss.backward()
            if accum_n_steps >= args.accum_grad_n_steps or is_new_epoch:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
                scheduler.step()
                scheduler.zero_grad()
                accum_n_steps = 0
