import torch
from torch.nn.parallel import DistributedDataParallel


def train(rank, world_size, model, train_loader, optimizer, config):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank], output_device=rank)
    scaler = torch.amp.GradScaler("cuda")
    if "EffectiveBatchSize" in config:
        accumulate_freq = config["EffectiveBatchSize"] // config["BatchSize"] // world_size
    else:
        accumulate_freq = 1
    cur_iterations = 0
    for epoch in range(config.get("NumEpochs", 100)):
        model.train()
        optimizer.zero_grad()
        for images, targets in train_loader:
            cur_iterations += 1
            with torch.autocast("cuda", dtype=torch.float16):
                _, losses = model(images.to(rank), targets)
            loss = losses.mean()
            scaler.scale(loss).backward()  # expect: GL201, GL401
            if cur_iterations == 1 or cur_iterations % accumulate_freq == 0:  # expect: GL205
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
