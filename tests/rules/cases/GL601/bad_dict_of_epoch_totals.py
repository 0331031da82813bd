import torch
import torch.nn.functional as F


def train_operator(model, train_loader, optimizer, scheduler, config, pde_residual):
    """A physics-informed operator's epoch totals live in a dict started from floats: adding
    the loss tensors keeps every batch's graph until the dict is reduced after the epoch."""
    for epoch in range(config["epochs"]):
        model.train()
        totals = {"loss": 0.0, "data": 0.0, "pde": 0.0}
        for x, y in train_loader:
            optimizer.zero_grad()
            out = model(x.cuda())
            data_loss = F.mse_loss(out, y.cuda())
            pde_loss = pde_residual(out, x.cuda())
            loss = data_loss * config["data_weight"] + pde_loss * config["pde_weight"]
            loss.backward()
            optimizer.step()
            totals["loss"] += loss  # expect: GL601
            totals["data"] += data_loss.item()
            totals["pde"] += pde_loss.item()
        scheduler.step()
        print({key: float(value) / len(train_loader) for key, value in totals.items()})
