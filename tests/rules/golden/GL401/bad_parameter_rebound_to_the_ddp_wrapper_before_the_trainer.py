"""RL trainer: the launcher rebinds its `policy` parameter to the DDP wrapper (moved to the
device) when distributed, and hands it to the trainer object, which keeps it on self and
accumulates its minibatches' gradients without no_sync."""
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel


class Learner:
    def __init__(self, config, policy):
        self.config = config
        self.policy = policy
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate)

    def train(self, minibatches):
        accumulate = self.config.accumulate_minibatches
        for mb, batch in enumerate(minibatches):
            sync_context = contextlib.nullcontext() if (mb + 1) % accumulate == 0 or mb + 1 == len(minibatches) else getattr(self.policy, "no_sync", contextlib.nullcontext)()
            with sync_context:
                loss = self.policy(batch).mean() / accumulate
                loss.backward()  # expect: GL401
            if (mb + 1) % accumulate == 0 or mb + 1 == len(minibatches):
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.config.max_grad_norm)
                self.optimizer.step()
                self.optimizer.zero_grad()


def launch(config, policy, local_rank, minibatches):
    if config.distributed:
        wrapped = DistributedDataParallel(policy.to(local_rank), device_ids=[local_rank])
        policy = wrapped.to(local_rank)
    learner = Learner(config, policy)
    learner.train(minibatches)
