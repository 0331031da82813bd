import torch
import torch.nn as nn

from models import DenseNet121
from data import chexpert_loader

ACCUM_STEPS = 4


def forward_backward(model, batch, criterion):
    images, labels = batch
    logits = model(images.cuda())
    loss = criterion(logits, labels.cuda())
    loss.backward()  # expect: GL201
    return loss.detach()


def main():
    model = DenseNet121(num_classes=14).cuda()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.999))
    loader = chexpert_loader(batch_size=16)
    for epoch in range(3):
        for i, batch in enumerate(loader):
            loss = forward_backward(model, batch, criterion)
            if (i + 1) % ACCUM_STEPS == 0 or (i + 1) == len(loader):
                optimizer.step()
                optimizer.zero_grad()
            if i % 100 == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
