import torch


class GradientClipper:
    """Clips the total gradient norm of the parameters it is given, in place."""

    def __init__(self, max_grad_norm):
        self.max_norm = max_grad_norm

    def step(self, parameters):
        grads = [p.grad for p in parameters if p.grad is not None]
        total_norm = torch.norm(torch.stack([torch.norm(g) for g in grads])).item()
        clip_coef = self.max_norm / (total_norm + 1e-6)
        if clip_coef < 1:
            for g in grads:
                g.mul_(clip_coef)


def train(model, loader, optimizer, args):
    clipper = GradientClipper(max_grad_norm=1.0)
    model.train()
    for step, batch in enumerate(loader):
        loss = model(**batch).loss / args.gradient_accumulation_steps
        loss.backward()
        if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
            clipper.step(model.parameters())  # expect: GL203
            optimizer.step()
            optimizer.zero_grad()
