"""A molecular property regressor's epoch function steps the cosine schedule first when it
trains; the epoch loop calls it for training and validation, and a test helper once more
outside any loop (with `partition="test"`, which never steps)."""
import torch


def train(model, epoch, loader, partition="train", optimizer=None, lr_scheduler=None):
    if partition == "train":
        lr_scheduler.step()  # expect: GL106
    res = {"loss": 0, "counter": 0}
    for i, data in enumerate(loader):
        if partition == "train":
            model.train()
            optimizer.zero_grad()
        else:
            model.eval()
        pred = model(data["x"].cuda())
        loss = torch.nn.functional.l1_loss(pred, data["y"].cuda())
        if partition == "train":
            loss.backward()
            optimizer.step()
        res["loss"] += loss.item()
    return res["loss"] / max(res["counter"], 1)


def test(model, epoch, loader):
    return train(model, epoch, loader, partition="test")


def main(args, model, loaders):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs)
    for epoch in range(args.epochs):
        train(model, epoch, loaders["train"], partition="train", optimizer=optimizer, lr_scheduler=lr_scheduler)
        train(model, epoch, loaders["valid"], partition="valid", optimizer=optimizer, lr_scheduler=lr_scheduler)
    return test(model, args.epochs, loaders["test"])
