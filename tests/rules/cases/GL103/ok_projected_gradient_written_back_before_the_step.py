"""Gradient surgery (PCGrad-style): each task's gradient is gathered after its own backward,
the projected sum is written back into `.grad` after a clear, and only then does the optimizer
step: the clear does not throw away what the step reads."""
import torch


def train(model, loader, optimizer, epochs, eps=1e-12):
    params = [p for p in model.parameters() if p.requires_grad]

    def gather(params):
        return torch.cat([p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel()) for p in params])

    def set_grads(params, flat):
        index = 0
        for p in params:
            chunk = flat[index:index + p.numel()].view_as(p).contiguous()
            if p.grad is None:
                p.grad = chunk.clone()
            else:
                p.grad.copy_(chunk)
            index += p.numel()

    for epoch in range(epochs):
        for view1, view2, bags in loader:
            optimizer.zero_grad()
            model.contrastive_loss(view1, view2).backward(retain_graph=True)
            g1 = gather(params)
            optimizer.zero_grad()
            model.similarity_loss(bags).backward()
            g2 = gather(params)
            dot = (g1 * g2).sum()
            if dot < 0:
                g1 = g1 - dot / (g2.pow(2).sum() + eps) * g2
            optimizer.zero_grad()
            set_grads(params, g1 + g2)
            optimizer.step()
