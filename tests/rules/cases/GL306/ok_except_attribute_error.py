import torch


def make_scaler(enabled):
    try:
        return torch.amp.GradScaler("cuda", enabled=enabled)
    except AttributeError:  # torch.amp.GradScaler appeared in 2.3
        return torch.cuda.amp.GradScaler(enabled=enabled)
