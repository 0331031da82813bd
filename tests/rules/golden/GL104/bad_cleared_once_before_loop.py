import torch
import torch.nn.functional as F


def pretrain_epoch(model, optimizer, loader, temperature, device):
    """Contrastive pre-training: the gradients are cleared once when the epoch starts, then
    every batch backpropagates and steps on top of what the earlier batches left."""
    model.train()
    losses = []
    optimizer.zero_grad()
    for view_a, view_b in loader:
        z_a = F.normalize(model(view_a.to(device)), dim=1)
        z_b = F.normalize(model(view_b.to(device)), dim=1)
        logits = z_a @ z_b.t() / temperature
        loss = F.cross_entropy(logits, torch.arange(len(z_a), device=device))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()  # expect: GL104
        optimizer.zero_grad()
    return sum(losses) / len(losses)
