import torch


class GradCache:
    """Encode every chunk without grad, take the loss over the cached representations, clip
    their gradients, then backpropagate each chunk with its cached gradient."""

    def __init__(self, model, loss_fn, rep_grad_clip=None):
        self.model, self.loss_fn, self.rep_grad_clip = model, loss_fn, rep_grad_clip

    def __call__(self, chunks):
        with torch.no_grad():
            reps = [self.model(chunk) for chunk in chunks]
        reps = [r.detach().requires_grad_() for r in reps]
        loss = self.loss_fn(torch.cat(reps))
        loss.backward()
        if self.rep_grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(reps, self.rep_grad_clip)
        cache = [r.grad for r in reps]
        for chunk, grad in zip(chunks, cache):
            self.model(chunk).backward(gradient=grad)
        return loss.detach()


def train(model, loader, optimizer, loss_fn, accum_steps, max_norm):
    grad_cache = GradCache(model, loss_fn, rep_grad_clip=1.0)
    for step, chunks in enumerate(loader):
        grad_cache(chunks)  # expect: GL201
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()
