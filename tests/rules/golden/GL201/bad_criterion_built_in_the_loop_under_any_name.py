"""A docking-score regressor that builds its MSE criteria inside the loop under names of its
own (`LossG`, `LossL`) and accumulates ten samples per step: the mean of each sample's loss is
backpropagated undivided, so the step applies ten times the window's mean gradient."""
import torch

ACCUM = 10


def enumerate_an_epoch(model, optimizer, generator, device, is_training=True):
    for i, (graph, fnat, lddt) in enumerate(generator):
        pred_fnat, pred_lddt = model(graph.to(device))
        LossG = torch.nn.MSELoss()
        LossL = torch.nn.MSELoss()
        loss = LossG(pred_fnat, fnat.to(device)) + LossL(pred_lddt, lddt.to(device))
        if is_training:
            (loss / ACCUM).backward()  # expect: GL201
            if i % ACCUM == ACCUM - 1 or i + 1 == len(generator):  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
