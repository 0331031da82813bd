"""The video GAN's discriminator update with the hand-written all-reduce given no gain: the
chunks' mean losses add up undivided, and the step sees the sum of the window's gradients."""
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
            (F.softplus(self.D(fake_chunk)).mean() / len(fake_video.chunk(self.D_grad_accum))).backward()  # expect: GL201
            (F.softplus(-self.D(real_chunk)).mean() / len(fake_video.chunk(self.D_grad_accum))).backward()  # expect: GL201
        self.D.requires_grad_(False)
        sync_grads(self.D)
        self.D_opt.step()
        self.D_opt.zero_grad(set_to_none=True)
