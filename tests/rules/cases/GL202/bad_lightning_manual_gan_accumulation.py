import lightning.pytorch as pl
import torch

from autoencoders import VQAutoencoder, PatchDiscriminator
from losses import LPIPSWithDiscriminator


class AutoencoderGAN(pl.LightningModule):
    def __init__(self, lr=4.5e-6, accumulate_grad_batches=4, grad_clip=1.0):
        super().__init__()
        self.automatic_optimization = False
        self.autoencoder = VQAutoencoder(embed_dim=4)
        self.discriminator = PatchDiscriminator(input_nc=3)
        self.loss = LPIPSWithDiscriminator(disc_start=50001)
        self.lr = lr
        self.accumulate_grad_batches = accumulate_grad_batches
        self.grad_clip = grad_clip

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()
        recon, qloss = self.autoencoder(batch)

        ae_loss = self.loss(qloss, batch, recon, optimizer_idx=0, global_step=self.global_step) / self.accumulate_grad_batches
        g_opt.zero_grad()  # expect: GL202
        self.manual_backward(ae_loss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:  # expect: GL205
            self.clip_gradients(g_opt, gradient_clip_val=self.grad_clip, gradient_clip_algorithm="norm")
            g_opt.step()

        disc_loss = self.loss(qloss, batch, recon.detach(), optimizer_idx=1, global_step=self.global_step) / self.accumulate_grad_batches
        d_opt.zero_grad()  # expect: GL202
        self.manual_backward(disc_loss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:  # expect: GL205
            self.clip_gradients(d_opt, gradient_clip_val=self.grad_clip, gradient_clip_algorithm="norm")
            d_opt.step()
        self.log_dict({"ae_loss": ae_loss, "disc_loss": disc_loss}, prog_bar=True)

    def configure_optimizers(self):
        g_opt = torch.optim.Adam(self.autoencoder.parameters(), lr=self.lr, betas=(0.5, 0.9))
        d_opt = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.9))
        return [g_opt, d_opt]
