import math

import torch
import tqdm


def train_single_epoch(config, model, dataloader, criterion, optimizer, epoch):
    model.train()
    total_step = math.ceil(len(dataloader.dataset) / config.train.batch_size)
    tbar = tqdm.tqdm(enumerate(dataloader), total=total_step)
    for i, data in tbar:
        images, labels = data["image"].cuda(), data["label"].cuda()
        loss = criterion(model(images), labels.float()) / config.train.num_grad_acc
        loss.backward()
        if (i + 1) % config.train.num_grad_acc == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
        tbar.set_description(f"epoch {epoch} loss {loss.item():.4f}")
