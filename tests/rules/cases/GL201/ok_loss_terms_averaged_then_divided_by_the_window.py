"""Three heads' losses averaged by their count, then divided by the window."""
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, grad_accum=8):
    optimizer.zero_grad()
    for i, batch in enumerate(loader):
        policy, value, aux = model(batch["board"])
        loss = (
            F.cross_entropy(policy, batch["move"]) + F.mse_loss(value, batch["result"]) + F.mse_loss(aux, batch["moves_left"])
        ) / 3
        (loss / grad_accum).backward()
        if (i + 1) % grad_accum == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
