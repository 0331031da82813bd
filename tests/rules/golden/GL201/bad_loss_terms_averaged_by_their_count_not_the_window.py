"""Three heads' losses averaged by their count (the `/ 3` weighs the terms, it is the same for
any window) and accumulated over `grad_accum` micro-batches: the window is never divided."""
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, grad_accum=8):
    optimizer.zero_grad()
    for i, batch in enumerate(loader):
        policy, value, aux = model(batch["board"])
        policy_loss = F.cross_entropy(policy, batch["move"])
        value_loss = F.mse_loss(value, batch["result"])
        aux_loss = F.mse_loss(aux, batch["moves_left"])
        loss = (policy_loss + value_loss + aux_loss) / 3
        (loss / grad_accum).backward()  # expect: GL201
        if (i + 1) % grad_accum == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
