"""A video GAN's discriminator update: the batch is cut into `D_grad_accum` chunks, each chunk's
mean loss is backpropagated as is, and the hand-written gradient all-reduce is given the gain
`1 / D_grad_accum`, which it multiplies into the gradients it writes back: the step sees the
window's mean."""
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sync_grads(network, gain=None):
    params = [param for param in network.parameters() if param.grad is not None]
    flat_grads = torch.cat([param.grad.flatten() for param in params])
    if dist.is_initialized():
        dist.all_reduce(flat_grads)
        flat_grads /= dist.get_world_size()
    flat_grads = flat_grads if gain is None else flat_grads * gain
    for param, grad in zip(params, flat_grads.split([param.numel() for param in params])):
        param.grad = grad.reshape(param.size())


class VideoGAN:
    def __init__(self, G, D, D_opt, D_grad_accum):
        self.G, self.D, self.D_opt, self.D_grad_accum = G, D, D_opt, D_grad_accum

    def update_D(self, real_video):
        fake_video = self.G(real_video.size(0))
        self.D.requires_grad_(True)
        for fake_chunk, real_chunk in zip(fake_video.chunk(self.D_grad_accum), real_video.chunk(self.D_grad_accum)):
            F.softplus(self.D(fake_chunk)).mean().backward()
            F.softplus(-self.D(real_chunk)).mean().backward()
        self.D.requires_grad_(False)
        gain = 1 / self.D_grad_accum
        sync_grads(self.D, gain=gain)
        self.D_opt.step()
        self.D_opt.zero_grad(set_to_none=True)
