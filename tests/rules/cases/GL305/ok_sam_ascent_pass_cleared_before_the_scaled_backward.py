"""SAM with AMP: the ascent pass backpropagates the plain loss only to find the perturbation
direction, reads the gradients and clears them; the descent pass is scaled and is what
`scaler.step()` applies."""

import torch


def perturb_weights(model, loss_fn, rho):
    loss_fn(model).backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    grad_norm = torch.norm(torch.stack([g.norm() for g in grads]))
    deltas = {}
    for p in model.parameters():
        if p.grad is not None:
            deltas[p] = rho * p.grad / (grad_norm + 1e-12)
            p.data += deltas[p]
    model.zero_grad()
    return deltas


def train_epoch(model, loader, opt, scaler, rho):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        deltas = perturb_weights(model, lambda m: torch.nn.functional.cross_entropy(m(x), y), rho)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        for p, delta in deltas.items():
            p.data -= delta
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
