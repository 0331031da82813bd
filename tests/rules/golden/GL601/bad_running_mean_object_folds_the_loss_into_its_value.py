"""A few-shot meta-training loop handing each episode's loss tensor to a running-mean object
that folds it into its value (`self.v = (self.v * self.n + x) / (self.n + 1)`): every episode's
graph stays chained to the mean for the whole epoch."""

import torch


class Averager:
    def __init__(self):
        self.n = 0
        self.v = 0

    def add(self, x):
        self.v = (self.v * self.n + x) / (self.n + 1)
        self.n += 1

    def item(self):
        return self.v


def meta_train(model, loader, optimizer, n_way, epoch):
    model.train()
    train_ave_loss = Averager()
    train_ave_acc = Averager()
    for episode, (images, _) in enumerate(loader):
        support, query = images[: n_way].cuda(), images[n_way:].cuda()
        labels = torch.arange(n_way).repeat(query.shape[0] // n_way).cuda()
        logits = model(support, query)
        loss = torch.nn.functional.cross_entropy(logits, labels)
        acc = (logits.argmax(dim=1) == labels).float().mean().item()
        train_ave_loss.add(loss.detach())  # expect: GL601
        train_ave_acc.add(acc)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {train_ave_loss.item():.4f} acc {train_ave_acc.item():.4f}")
