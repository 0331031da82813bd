import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class TrainLoop:
    """A diffusion trainer that also trains its classifier head: one auxiliary backward per
    step, then the batch cut into micro-batches, each backpropagating its own mean loss."""

    def __init__(self, model, diffusion, batch_size, microbatch, ce_weight=0.1):
        self.model = model
        self.diffusion = diffusion
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.ce_weight = ce_weight
        self.ddp_model = DDP(model)
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def run_step(self, batch, labels):
        self.forward_backward(batch, labels)
        self.opt.step()

    def forward_backward(self, batch, labels):
        self.opt.zero_grad()
        with self.ddp_model.no_sync():
            logits = self.ddp_model(batch, cls_mode=True)
            loss_cls = self.ce_weight * torch.nn.functional.cross_entropy(logits, labels)
            loss_cls.backward()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            last_batch = (i + self.microbatch) >= batch.shape[0]
            t = torch.randint(0, 1000, (micro.shape[0],))
            if last_batch:
                losses = self.diffusion.training_losses(self.ddp_model, micro, t)
                losses["loss"].mean().backward()  # expect: GL201
            else:
                with self.ddp_model.no_sync():
                    losses = self.diffusion.training_losses(self.ddp_model, micro, t)
                    losses["loss"].mean().backward()  # expect: GL201
