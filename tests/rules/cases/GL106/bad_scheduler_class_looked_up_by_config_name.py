"""A segmentation trainer that builds its schedule from a config file: the class is looked up
in the project's schedule module by name, and the script steps it at the top of every batch,
before the optimizer has stepped."""
import torch
import torch.nn.functional as F

import utils.lr_scheduler
from models import build_model


def train(config, train_loader, device):
    model = build_model(config["arch"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9)
    lr_scheduler = getattr(utils.lr_scheduler, config["lr_scheduler"]["type"])(
        optimizer, config["epochs"], len(train_loader)
    )
    for epoch in range(1, config["epochs"] + 1):
        model.train()
        for batch_idx, (image, mask) in enumerate(train_loader):
            image, mask = image.to(device), mask.to(device)
            lr_scheduler.step()  # expect: GL106
            optimizer.zero_grad()
            loss = F.cross_entropy(model(image), mask, ignore_index=255)
            loss.backward()
            optimizer.step()
