import functools

import torch


class TrainLoop:
    def __init__(self, model, diffusion, data, batch_size, microbatch, lr=1e-4):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.ddp_model = torch.nn.parallel.DistributedDataParallel(model)
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)

    def run_step(self, batch, cond):
        self.forward_backward(batch, cond)
        self.opt.step()

    def forward_backward(self, batch, cond):
        """The forward, made a partial, runs under no_sync on non-final slices; the backward later
        under a second no_sync with the same test."""
        self.opt.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            micro_cond = {k: v[i : i + self.microbatch] for k, v in cond.items()}
            last_batch = (i + self.microbatch) >= batch.shape[0]
            t = torch.randint(0, 1000, (micro.shape[0],))
            compute_losses = functools.partial(self.diffusion.training_losses, self.ddp_model, micro, t, model_kwargs=micro_cond)
            if last_batch:
                losses = compute_losses()
            else:
                with self.ddp_model.no_sync():
                    losses = compute_losses()
            loss = losses["loss"].mean() * micro.shape[0] / batch.shape[0]
            if last_batch:
                loss.backward()
            else:
                with self.ddp_model.no_sync():
                    loss.backward()
