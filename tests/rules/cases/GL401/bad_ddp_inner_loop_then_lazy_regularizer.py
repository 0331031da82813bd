"""A GAN discriminator step: the main update accumulates acml_steps micro-batches, then (every
few iterations) a lazy R1 regulariser makes a second update of its own."""
import torch


class Worker:
    def __init__(self, discriminator, d_optimizer, acml_steps, r1_interval, local_rank):
        self.dis = torch.nn.parallel.DistributedDataParallel(discriminator, device_ids=[local_rank])
        self.d_optimizer = d_optimizer
        self.acml_steps = acml_steps
        self.r1_interval = r1_interval

    def train_discriminator(self, real_basket, fake_basket, current_step):
        for step_index in range(2):
            self.d_optimizer.zero_grad()
            for acml_index in range(self.acml_steps):
                real_logits = self.dis(real_basket[acml_index])
                fake_logits = self.dis(fake_basket[acml_index])
                loss = torch.nn.functional.softplus(fake_logits).mean() + torch.nn.functional.softplus(-real_logits).mean()
                (loss / self.acml_steps).backward()  # expect: GL401
            self.d_optimizer.step()

            if current_step % self.r1_interval == 0:
                self.d_optimizer.zero_grad()
                for acml_index in range(self.acml_steps):
                    real = real_basket[acml_index].requires_grad_(True)
                    logits = self.dis(real)
                    grad, = torch.autograd.grad(logits.sum(), real, create_graph=True)
                    r1 = grad.pow(2).flatten(1).sum(1).mean()
                    (r1 * self.r1_interval / self.acml_steps).backward()
                self.d_optimizer.step()
