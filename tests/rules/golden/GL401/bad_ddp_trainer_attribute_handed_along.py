import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel


def copy_weights(model_tgt, model_src):
    model_tgt.load_state_dict(model_src.state_dict())
    return model_tgt


class Trainer:
    """`self.model` is the constructor's DDP model; an EMA copy later hands the same object back."""

    def __init__(self, opts, model, optimizer, scheduler, loader, gradient_scaler, model_ema=None):
        self.opts = opts
        self.model = model
        self.model_ema = model_ema
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = loader
        self.gradient_scaler = gradient_scaler
        self.accum_freq = getattr(opts, "accum_freq", 1)

    def train_epoch(self, epoch):
        self.model.train()
        for batch_id, (samples, targets) in enumerate(self.train_loader):
            self.optimizer = self.scheduler.update_lr(optimizer=self.optimizer, epoch=epoch)
            sync_context = contextlib.nullcontext() if (batch_id + 1) % self.accum_freq == 0 or batch_id + 1 == len(self.train_loader) else getattr(self.model, "no_sync", contextlib.nullcontext)()
            with sync_context:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(self.model(samples), targets) / self.accum_freq
                self.gradient_scaler.scale(loss).backward()  # expect: GL401
            if (batch_id + 1) % self.accum_freq == 0 or batch_id + 1 == len(self.train_loader):
                self.gradient_scaler.step(optimizer=self.optimizer)
                self.gradient_scaler.update()
                self.optimizer.zero_grad(set_to_none=True)

    def run(self, epochs, copy_at_epoch):
        for epoch in range(epochs):
            self.train_epoch(epoch)
            if epoch == copy_at_epoch and self.model_ema is not None:
                self.model = copy_weights(model_tgt=self.model, model_src=self.model_ema)


def main(opts, net, optimizer, scheduler, loader, local_rank):
    model = DistributedDataParallel(net.cuda(local_rank), device_ids=[local_rank])
    scaler = torch.amp.GradScaler("cuda")
    Trainer(opts=opts, model=model, optimizer=optimizer, scheduler=scheduler, loader=loader, gradient_scaler=scaler).run(
        opts.epochs, opts.copy_at_epoch
    )
