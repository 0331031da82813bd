import torch
import torch.nn.functional as F
from tqdm import tqdm

from sae import SparseAutoencoder
from activations import activation_loader


def train(sae: SparseAutoencoder, loader, lr: float = 3e-4, n_gradient_accumulation_steps: int = 4, l1_coeff: float = 5.0):
    optimizer = torch.optim.Adam(sae.parameters(), lr=lr)
    for batch_idx, acts in tqdm(enumerate(loader), desc="steps"):
        is_grad_step: bool = (batch_idx + 1) % n_gradient_accumulation_steps == 0
        recon, latents = sae(acts)
        loss = F.mse_loss(recon, acts) + l1_coeff * latents.abs().sum(-1).mean()
        loss.backward()  # expect: GL201
        if is_grad_step:  # expect: GL205
            torch.nn.utils.clip_grad_norm_(sae.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    train(SparseAutoencoder(d_in=768, n_latents=24576), activation_loader("gpt2", layer=6))
