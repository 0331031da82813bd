"""After the epoch's batches a helper is handed the optimizer only to log its learning rate:
the partial window left over is never stepped, and the next epoch's clear drops it."""
import torch


def log_learning_rate(writer, opt, epoch):
    writer.add_scalar("lr", opt.param_groups[0]["lr"], epoch)


def train(model, loader, writer, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    accum_steps = cfg["grad_accum_steps"]
    for epoch in range(cfg["epochs"]):
        optimizer.zero_grad()
        for i, (inputs, targets) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(model(inputs), targets) / accum_steps
            loss.backward()
            if (i + 1) % accum_steps == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
        log_learning_rate(writer, optimizer, epoch)
