import functools

import torch


class TrainLoop:
    def __init__(self, model, diffusion, batch_size, microbatch, lr=1e-4):
        self.diffusion = diffusion
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.ddp_model = torch.nn.parallel.DistributedDataParallel(model)
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)

    def run_step(self, batch):
        self.forward_backward(batch)
        self.opt.step()

    def forward_backward(self, batch):
        """The partial forward runs before the context: no_sync around the backward alone."""
        self.opt.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            last_batch = (i + self.microbatch) >= batch.shape[0]
            t = torch.randint(0, 1000, (micro.shape[0],))
            compute_losses = functools.partial(self.diffusion.training_losses, self.ddp_model, micro, t)
            losses = compute_losses()
            loss = losses["loss"].mean() * micro.shape[0] / batch.shape[0]
            if last_batch:
                loss.backward()
            else:
                with self.ddp_model.no_sync():  # expect: GL402
                    loss.backward()
