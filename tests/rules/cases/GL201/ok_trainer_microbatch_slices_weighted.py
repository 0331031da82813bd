import functools

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from diffusion.resample import UniformSampler
from diffusion.nn import update_ema


class TrainLoop:
    def __init__(self, *, model, diffusion, data, batch_size, microbatch, lr, ema_rate, log_interval=10):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.batch_size = batch_size
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.ema_rate = ema_rate
        self.log_interval = log_interval
        self.schedule_sampler = UniformSampler(diffusion)
        self.step = 0
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.0)
        self.ema_params = [p.detach().clone() for p in self.model.parameters()]
        self.ddp_model = DDP(self.model, device_ids=[dist.get_rank()], broadcast_buffers=False, bucket_cap_mb=128)

    def run_loop(self):
        while True:
            batch, cond = next(self.data)
            self.run_step(batch, cond)
            if self.step % self.log_interval == 0:
                print("step", self.step)
            self.step += 1

    def run_step(self, batch, cond):
        self.forward_backward(batch, cond)
        self.optimize()

    def forward_backward(self, batch, cond):
        self.opt.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch].cuda()
            micro_cond = {k: v[i : i + self.microbatch].cuda() for k, v in cond.items()}
            last_batch = (i + self.microbatch) >= batch.shape[0]
            t, _ = self.schedule_sampler.sample(micro.shape[0], micro.device)
            compute_losses = functools.partial(self.diffusion.training_losses, self.ddp_model, micro, t, model_kwargs=micro_cond)
            if last_batch:
                losses = compute_losses()
            else:
                with self.ddp_model.no_sync():
                    losses = compute_losses()
            loss = losses["loss"].mean() * (micro.shape[0] / batch.shape[0])
            loss.backward()

    def optimize(self):
        self.opt.step()
        for rate, params in zip(self.ema_rate, self.ema_params):
            update_ema(params, self.model.parameters(), rate=rate)
