import torch
import torch.nn.functional as F

from model import ConvNeXt
from data import get_train_loader

GRAD_ACCUM = 16


def compute_loss(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits, y) / GRAD_ACCUM


def main():
    model = ConvNeXt(depths=(3, 3, 9, 3), dims=(96, 192, 384, 768), num_classes=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.05)
    loader = get_train_loader(batch_size=32)
    for epoch in range(300):
        for step, (x, y) in enumerate(loader):
            loss = compute_loss(model, x, y)
            loss.backward()
            if (step + 1) % GRAD_ACCUM == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
