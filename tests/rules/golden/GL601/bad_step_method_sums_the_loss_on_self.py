"""A GAN model class whose per-batch step method (driven by a loop in another module) adds each
backpropagated loss to totals kept on the object, read and reset only when the trainer logs:
every call's graph stays alive until then."""
import torch


class GANModel:
    def __init__(self, generator, discriminator, opt_g, opt_d):
        self.netG, self.netD = generator, discriminator
        self.G_optimizer, self.D_optimizer = opt_g, opt_d
        self.G_train_loss = 0.0
        self.D_train_loss = 0.0

    def optimize_parameters(self, real, noise):
        fake = self.netG(noise)
        self.D_optimizer.zero_grad()
        self.dis_loss = torch.nn.functional.softplus(-self.netD(real)).mean() + torch.nn.functional.softplus(self.netD(fake.detach())).mean()
        self.D_train_loss += self.dis_loss.detach()  # expect: GL601
        self.dis_loss.backward()
        self.D_optimizer.step()
        self.G_optimizer.zero_grad()
        self.gen_loss = torch.nn.functional.softplus(-self.netD(fake)).mean()
        self.G_train_loss += self.gen_loss.item()
        self.gen_loss.backward()
        self.G_optimizer.step()

    def record_train_log(self, steps):
        log = {"D": self.D_train_loss.item() / steps, "G": self.G_train_loss / steps}
        self.G_train_loss = 0.0
        self.D_train_loss = 0.0
        return log
