"""Layer-wise fine-tuning after quantization: the criterion is built and called in one
expression, and its mean over the micro-batch is backpropagated undivided while the scaler
steps once per `update_every` micro-batches."""
import torch
from torch import nn


def finetune_layer(layer, train_dl, args, device):
    optimizer = torch.optim.Adam(layer.parameters(), lr=args.ft_lr)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.ft_epochs):
        for index, (source, targets) in enumerate(train_dl):
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                output = layer(source.to(device))[0]
                loss = nn.MSELoss()(output, targets.to(device))
            scaler.scale(loss).backward()  # expect: GL201
            if index % args.update_every == args.update_every - 1 or index == len(train_dl) - 1:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
