"""MixMatch style: `ema_optimizer` is a hand-written weight average whose `step()` blends the
model's weights into the EMA model's and decays them; it reads no gradient, so nothing about
clearing gradients applies to it (the real optimizer clears before each backward)."""
import torch


class WeightEMA(object):
    def __init__(self, model, ema_model, lr, alpha=0.999):
        self.alpha = alpha
        self.params = list(model.state_dict().values())
        self.ema_params = list(ema_model.state_dict().values())
        self.wd = 0.02 * lr
        for param, ema_param in zip(self.params, self.ema_params):
            param.data.copy_(ema_param.data)

    def step(self):
        one_minus_alpha = 1.0 - self.alpha
        for param, ema_param in zip(self.params, self.ema_params):
            if ema_param.dtype == torch.float32:
                ema_param.mul_(self.alpha)
                ema_param.add_(param * one_minus_alpha)
                param.mul_(1 - self.wd)


def train(labeled_loader, model, optimizer, ema_optimizer, criterion):
    model.train()
    for inputs_x, targets_x in labeled_loader:
        logits = model(inputs_x.cuda())
        loss = criterion(logits, targets_x.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_optimizer.step()


def main(args, model, ema_model, labeled_loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    ema_optimizer = WeightEMA(model, ema_model, args.lr, alpha=args.ema_decay)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train(labeled_loader, model, optimizer, ema_optimizer, criterion)
