"""Pre-training on a WebDataset stream whose shards are drawn with replacement: the loader given
to `train_one_epoch` never runs out, so no partial window is ever left at an epoch's end."""
import torch
import webdataset as wds


def train_one_epoch(model, data_loader, optimizer, args):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (images, labels) in enumerate(data_loader):
        loss = torch.nn.functional.cross_entropy(model(images), labels) / args.accum_iter
        loss.backward()
        if (data_iter_step + 1) % args.accum_iter == 0:
            optimizer.step()
            optimizer.zero_grad()


def main(args, model, transform):
    dataset = wds.WebDataset(args.data_path, resampled=True).shuffle(10000).decode("pil").to_tuple("jpg", "cls").map_tuple(transform, int)
    data_loader = wds.WebLoader(dataset, batch_size=args.batch_size, num_workers=args.num_workers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for _ in range(args.epochs):
        train_one_epoch(model, data_loader, optimizer, args)
