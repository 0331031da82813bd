"""Operator-learning trainer: each iteration draws its batch in chunks that fit in memory, and
backpropagates each chunk's mean squared error written out by hand; the step after the chunks
applies their sum, not the batch's mean."""
import torch


def train(model, optimizer, scaler, args, sample_batch, device):
    def chunk_sizes(total, micro):
        if micro <= 0:
            return [total]
        sizes, done = [], 0
        while done < total:
            size = min(micro, total - done)
            sizes.append(size)
            done += size
        return sizes

    model.train()
    for epoch in range(args.epochs):
        for _ in range(args.iters):
            optimizer.zero_grad(set_to_none=True)
            for size in chunk_sizes(args.batch_size, args.microbatch):
                x, t, truth = sample_batch(size, device)
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
                    prediction = model(x, t)
                    loss = torch.mean((prediction - truth) ** 2)
                scaler.scale(loss).backward()  # expect: GL201
            scaler.step(optimizer)
            scaler.update()
