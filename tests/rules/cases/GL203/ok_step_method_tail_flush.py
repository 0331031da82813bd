import torch

from diffusion.data import build_dataloader
from diffusion.models import load_unet


class AccumulatingOptimizer:
    """Owns the optimizer of the UNet; the training loop hands it every micro-batch's loss."""

    def __init__(self, params, lr, grad_accum, epoch_len, clip_grad_norm=1.0):
        self.params = list(params)
        self.optimizer = torch.optim.AdamW(self.params, lr=lr)
        self.grad_accum = grad_accum
        self.epoch_len = epoch_len
        self.clip_grad_norm = clip_grad_norm

    def step(self, loss, step, global_step):
        loss.backward()
        if ((global_step + 1) % self.grad_accum == 0) or (step == self.epoch_len - 1):
            if self.clip_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(self.params, max_norm=self.clip_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)


def train(args):
    unet = load_unet(args.pretrained).cuda()
    loader = build_dataloader(args.data_root, args.batch_size)
    accumulating = AccumulatingOptimizer(unet.parameters(), args.lr, args.grad_accum, len(loader))
    global_step = 0
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            loss = unet(batch["latents"].cuda(), batch["timesteps"].cuda()).mean() / args.grad_accum
            accumulating.step(loss, step, global_step)
            global_step += 1
