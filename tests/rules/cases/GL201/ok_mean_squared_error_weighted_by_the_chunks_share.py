"""The same chunked trainer weighting each chunk's mean squared error by its share of the
batch: the chunks' gradients add up to the batch mean's."""
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
                    loss = ((prediction - truth) ** 2).mean() * size / args.batch_size
                scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
