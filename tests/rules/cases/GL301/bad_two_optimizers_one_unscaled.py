import torch
from torch import nn


def split_parameters(model):
    """Matrices go to the orthogonalizing optimizer, the rest (embeddings, norms) to AdamW."""
    matrices, others = [], []
    for name, param in model.named_parameters():
        (matrices if param.ndim == 2 and "embed" not in name else others).append(param)
    return matrices, others


def train(model, loader, args, Muon):
    matrices, others = split_parameters(model)
    muon = Muon(matrices, lr=args.lr * 0.1, momentum=0.95)
    adamw = torch.optim.AdamW(others, lr=args.lr, betas=(0.9, 0.95))
    scaler = torch.amp.GradScaler("cuda")
    for step, (x, y) in enumerate(loader):
        muon.zero_grad(set_to_none=True)
        adamw.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            _, loss = model(x, targets=y)
        scaler.scale(loss).backward()
        scaler.unscale_(adamw)
        nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)  # expect: GL301
        scaler.step(muon)
        scaler.step(adamw)
        scaler.update()
