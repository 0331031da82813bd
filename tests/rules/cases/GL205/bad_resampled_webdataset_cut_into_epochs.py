"""A resampled WebDataset cut into epochs of `with_epoch(n)` batches: each epoch ends, and the
micro-batches after its last full window are cleared at the next epoch's start."""
import torch
import webdataset as wds


def train_one_epoch(model, data_loader, optimizer, accum_iter):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (images, labels) in enumerate(data_loader):
        loss = torch.nn.functional.cross_entropy(model(images), labels) / accum_iter
        loss.backward()
        if (data_iter_step + 1) % accum_iter == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()


def main(args, model, transform):
    dataset = wds.WebDataset(args.data_path, resampled=True).shuffle(10000).decode("pil").to_tuple("jpg", "cls").map_tuple(transform, int)
    data_loader = wds.WebLoader(dataset, batch_size=args.batch_size).with_epoch(args.batches_per_epoch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for _ in range(args.epochs):
        train_one_epoch(model, data_loader, optimizer, args.accum_iter)
