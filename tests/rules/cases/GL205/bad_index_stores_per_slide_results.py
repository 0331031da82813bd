"""Survival MIL trainer: one slide per batch, gradients accumulated over `gc` slides; the
index also stores each slide's risk in an array (it is not rebased by that), so the epoch's
last slides past a multiple of `gc` leak into the next epoch's first window."""
import numpy as np
import torch


def train_loop_survival(epoch, model, loader, optimizer, loss_fn, gc=16, device="cuda"):
    model.train()
    all_risk_scores = np.zeros(len(loader))
    for batch_idx, (data_wsi, label, event_time, c) in enumerate(loader):
        hazards, survival, _ = model(x_path=data_wsi.to(device))
        loss = loss_fn(hazards=hazards, S=survival, Y=label.to(device), c=c.to(device))
        all_risk_scores[batch_idx] = -torch.sum(survival, dim=1).detach().cpu().numpy()
        loss = loss / gc
        loss.backward()
        if (batch_idx + 1) % gc == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
