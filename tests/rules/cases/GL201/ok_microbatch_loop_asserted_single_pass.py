import functools

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from diffusion.resample import UniformSampler


class MotionTrainLoop:
    """The micro-batch option was retired: the loop over slices still stands, but it asserts that
    it runs once, on the whole batch, so one backward feeds each step."""

    def __init__(self, args, model, diffusion, data):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.batch_size = args.batch_size
        self.microbatch = args.batch_size  # option retired
        self.schedule_sampler = UniformSampler(diffusion)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=args.lr)
        self.ddp_model = DDP(self.model) if args.distributed else self.model

    def run_loop(self):
        for epoch in range(100):
            for motion, cond in self.data:
                self.forward_backward(motion, cond)
                self.opt.step()

    def forward_backward(self, batch, cond):
        self.opt.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            assert i == 0
            assert self.microbatch == self.batch_size
            micro, micro_cond = batch, cond
            t, weights = self.schedule_sampler.sample(micro.shape[0], micro.device)
            compute_losses = functools.partial(self.diffusion.training_losses, self.ddp_model, micro, t, model_kwargs=micro_cond)
            losses = compute_losses()
            loss = (losses["loss"] * weights).mean()
            loss.backward()
