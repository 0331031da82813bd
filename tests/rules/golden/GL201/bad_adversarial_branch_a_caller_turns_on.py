"""Fold loop of a notebook-turned-script: from a given epoch on, the FGM branch backpropagates
an undivided adversarial loss on every micro-batch while the step waits for the window."""
import torch


class FGM:
    def __init__(self, model, epsilon=1.0):
        self.model, self.epsilon, self.backup = model, epsilon, {}

    def attack(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and "word_embeddings" in name and param.grad is not None:
                self.backup[name] = param.data.clone()
                param.data.add_(self.epsilon * param.grad / (param.grad.norm() + 1e-8))

    def restore(self):
        for name, param in self.model.named_parameters():
            if name in self.backup:
                param.data = self.backup[name]
        self.backup = {}


def train(model, loader, criterion, optimizer, epoch, n_accumulate=1, is_adversarial=False, max_grad_norm=0.0):
    model.train()
    fgm = FGM(model) if is_adversarial else None
    for i, (ids, mask, target) in enumerate(loader):
        output = model(ids.cuda(), mask.cuda())
        loss = criterion(output, target.cuda())
        loss = loss / n_accumulate
        loss.backward()
        if is_adversarial:
            fgm.attack()
            loss_adv = criterion(model(ids.cuda(), mask.cuda()), target.cuda())
            (loss_adv / n_accumulate).backward()  # expect: GL201
            fgm.restore()
        if (i + 1) % n_accumulate == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()


def run_folds(folds, build, args):
    for fold, (loader, model) in enumerate(build(folds)):
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        criterion = torch.nn.MSELoss()
        for epoch in range(args.epochs):
            is_adversarial = epoch >= args.attack_from
            train(model, loader, criterion, optimizer, epoch, args.n_accumulate, is_adversarial)
