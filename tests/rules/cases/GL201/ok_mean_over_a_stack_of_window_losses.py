"""Each window's losses are kept and their mean is backpropagated once: `torch.mean` over the
stacked window is the window's mean, already divided."""
import torch
from openfold.utils.loss import compute_fape


def run(model, optimizer, train_loader, accumulation_steps=4):
    window = []
    for iteration, batch in enumerate(train_loader):
        out = model(batch["seq"])
        window.append(compute_fape(out["frames"], batch["frames"]))
        if len(window) == accumulation_steps:
            torch.mean(torch.stack(window)).backward()
            optimizer.step()
            optimizer.zero_grad()
            window = []
