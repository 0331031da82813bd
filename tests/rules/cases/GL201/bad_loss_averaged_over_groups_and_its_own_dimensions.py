import numpy as np
import torch


def grouped_loss(pred, y, groups, gamma=2):
    """Per perturbation group, the mean error over the group's cells and genes; then the mean
    over the groups: this batch's mean, whatever the window."""
    groups = np.array(groups)
    losses = torch.tensor(0.0, requires_grad=True).to(pred.device)
    for group in set(groups):
        index = np.where(groups == group)[0]
        pred_g, y_g = pred[index], y[index]
        losses += torch.sum((pred_g - y_g) ** (2 + gamma)) / pred_g.shape[0] / pred_g.shape[1]
    return losses / len(set(groups))


def train(model, train_loader, optimizer, scheduler, config, device):
    for epoch in range(config["epochs"]):
        model.train()
        for step, batch in enumerate(train_loader):
            batch = batch.to(device)
            loss = grouped_loss(model(batch), batch.y, batch.pert)
            loss.backward()  # expect: GL201
            if (step + 1) % config["accumulation_steps"] == 0 or step + 1 == len(train_loader):
                optimizer.step()
                optimizer.zero_grad()
        scheduler.step()
