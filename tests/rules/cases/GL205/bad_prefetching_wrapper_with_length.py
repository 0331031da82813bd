import torch


class CudaPrefetcher:
    """Moves the next batch to the GPU while the current one trains: one pass per epoch, with
    the wrapped loader's length."""

    def __init__(self, loader, device):
        self.loader = loader
        self.device = device

    def __iter__(self):
        stream = torch.cuda.Stream()
        for batch in self.loader:
            with torch.cuda.stream(stream):
                batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
            yield batch

    def __len__(self):
        return len(self.loader)


def train(model, optimizer, loader, args):
    batches = CudaPrefetcher(loader, args.device)
    for epoch in range(args.epochs):
        optimizer.zero_grad()
        for step, batch in enumerate(batches):
            loss = model(**batch).loss / args.accum_steps
            loss.backward()
            if (step + 1) % args.accum_steps == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
