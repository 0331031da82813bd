"""The same layer-wise loop with a summing criterion built inline: the window's gradient is
the sum over all its samples, as one big batch's summed loss would give."""
import torch
from torch import nn


def finetune_layer(layer, train_dl, args, device):
    optimizer = torch.optim.Adam(layer.parameters(), lr=args.ft_lr)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.ft_epochs):
        for index, (source, targets) in enumerate(train_dl):
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                output = layer(source.to(device))[0]
                loss = nn.MSELoss(reduction="sum")(output, targets.to(device))
            scaler.scale(loss).backward()
            if index % args.update_every == args.update_every - 1 or index == len(train_dl) - 1:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
