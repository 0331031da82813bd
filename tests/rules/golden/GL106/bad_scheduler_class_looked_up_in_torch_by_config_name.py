"""The schedule class comes from torch by a configured name, but the loop steps it before
the optimizer's first step: the first learning rate of the schedule is skipped."""
import torch
import torch.nn.functional as F


def fit(model, loader, cfg):
    optimizer = getattr(torch.optim, cfg.optimizer)(model.parameters(), lr=cfg.lr)
    scheduler = getattr(torch.optim.lr_scheduler, cfg.scheduler)(optimizer, **cfg.scheduler_args)
    for epoch in range(cfg.epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()  # expect: GL106
