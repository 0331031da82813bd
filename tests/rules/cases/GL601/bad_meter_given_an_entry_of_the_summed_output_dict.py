"""Retrieval-style training: the model returns a dict of loss terms and accuracies, the loss is
the sum of its entries whose key says `loss`, and each term goes to its own meter. The terms
share the graph of the backpropagated total: every meter keeps every iteration's graph."""
import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def do_train(model, train_loader, optimizer, scheduler, num_epoch):
    meters = {"loss": AverageMeter(), "itc_loss": AverageMeter(), "id_loss": AverageMeter(), "img_acc": AverageMeter()}
    for epoch in range(num_epoch):
        for meter in meters.values():
            meter.reset()
        model.train()
        for batch in train_loader:
            batch = {k: v.cuda() for k, v in batch.items()}
            ret = model(batch)
            total_loss = sum([v for k, v in ret.items() if "loss" in k])
            size = batch["images"].shape[0]
            meters["loss"].update(total_loss.item(), size)
            meters["itc_loss"].update(ret.get("itc_loss", 0), size)  # expect: GL601
            meters["id_loss"].update(ret["id_loss"], size)  # expect: GL601
            meters["img_acc"].update(ret.get("img_acc", 0), size)
            optimizer.zero_grad()
            total_loss.backward()
            optimizer.step()
        scheduler.step()
