"""A structure predictor recycles its output a random number of times: the passes before the last
run under `no_grad()` and `no_sync()` entered on an ExitStack, the last one with gradients and
in sync. That `no_sync` never covers a backward: every micro-batch's backward all-reduces while
the step waits for `accum_step` of them."""
import contextlib
from contextlib import ExitStack

import numpy as np
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, accum_step=8, max_cycle=4):
        self.model = model
        self.accum_step = accum_step
        self.max_cycle = max_cycle

    def train_cycle(self, ddp_model, loader, optimizer, scaler):
        counter = 0
        for features, target in loader:
            counter += 1
            n_cycle = np.random.randint(1, self.max_cycle + 1)
            prev = None
            sync_context = contextlib.nullcontext() if counter % self.accum_step == 0 or counter == len(loader) else ddp_model.no_sync()
            with sync_context:
                for i_cycle in range(n_cycle):
                    with ExitStack() as stack:
                        if i_cycle < n_cycle - 1:
                            stack.enter_context(torch.no_grad())
                            stack.enter_context(ddp_model.no_sync())
                        stack.enter_context(torch.autocast("cuda", dtype=torch.bfloat16))
                        prev = ddp_model(features, prev)
                loss = torch.nn.functional.mse_loss(prev.float(), target) / self.accum_step
                scaler.scale(loss).backward()  # expect: GL401
            if counter % self.accum_step == 0 or counter == len(loader):
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()

    def run(self, rank, loader):
        ddp_model = DDP(self.model.to(rank), device_ids=[rank])
        optimizer = torch.optim.Adam(ddp_model.parameters())
        scaler = torch.amp.GradScaler("cuda")
        self.train_cycle(ddp_model, loader, optimizer, scaler)
