"""A docking-quality trainer sums two MSE terms weighted from a list (`w_loss[0]`, `w_loss[1]`)
plus an L2 term weighted by `w_reg`, and accumulates `accum` samples before each step: the
weights set each term's share, they do not divide by the window."""
import torch

w_loss = [1.0, 0.5]
w_reg = 1e-5


def run_epoch(model, optimizer, generator, accum=10, clip=1.0):
    mse = torch.nn.MSELoss()
    for i, (graph, fnat, lddt) in enumerate(generator):
        pred_fnat, pred_lddt = model(graph)
        loss = w_loss[0] * mse(pred_fnat, fnat) + w_loss[1] * mse(pred_lddt, lddt)
        l2 = sum(torch.norm(p) for p in model.parameters())
        loss = loss + w_reg * l2
        (loss / accum).backward()  # expect: GL201
        if i % accum == accum - 1 or i + 1 == len(generator):  # expect: GL205
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            optimizer.zero_grad()
