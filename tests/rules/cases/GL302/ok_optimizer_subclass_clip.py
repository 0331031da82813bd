import torch
from torch.nn.utils import clip_grad_norm_


class ClippedAdamW(torch.optim.AdamW):
    """AdamW that clips the global gradient norm inside step()."""

    def __init__(self, params, max_norm=1.0, **kwargs):
        super().__init__(params, **kwargs)
        self.max_norm = max_norm

    def step(self, closure=None):
        params = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
        clip_grad_norm_(params, self.max_norm)
        return super().step(closure)


optimizer = ClippedAdamW(model.parameters(), max_norm=1.0, lr=1e-4)
scaler = torch.amp.GradScaler("cuda")
for batch in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # unscales first, then calls ClippedAdamW.step
    scaler.update()
