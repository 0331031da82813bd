"""The weighted terms are summed and the total divided by the window before backward; a scale
held in a weight list of one element per window share (`shares[0] = 1 / accum`) is not needed."""
import torch

w_loss = [1.0, 0.5]


def run_epoch(model, optimizer, generator, accum=10):
    mse = torch.nn.MSELoss()
    for i, (graph, fnat, lddt) in enumerate(generator):
        pred_fnat, pred_lddt = model(graph)
        loss = w_loss[0] * mse(pred_fnat, fnat) + w_loss[1] * mse(pred_lddt, lddt)
        (loss / accum).backward()
        if (i + 1) % accum == 0 or i + 1 == len(generator):
            optimizer.step()
            optimizer.zero_grad()
