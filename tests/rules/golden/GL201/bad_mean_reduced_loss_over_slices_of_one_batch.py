import torch
import torch.nn as nn


class Runner:
    """Each loader batch is cut into `accum` slices; the criterion averages each slice, so the
    slices' gradients add up to `accum` times the whole batch's."""

    def __init__(self, cfg, net, loader):
        self.cfg = cfg
        self.net = net
        self.loader = loader

    def train(self):
        criterion = nn.BCELoss(reduction="mean").cuda()
        optimizer = torch.optim.Adam(self.net.parameters(), lr=self.cfg.lr)
        sub = self.cfg.batch_size // self.cfg.accum
        for epoch in range(self.cfg.epochs):
            for step, (feats, questions, answers) in enumerate(self.loader):
                optimizer.zero_grad()
                for k in range(self.cfg.accum):
                    part = slice(k * sub, (k + 1) * sub)
                    scores = self.net(feats[part].cuda(), questions[part].cuda())
                    loss = criterion(scores, answers[part].cuda())
                    (loss / self.cfg.accum).backward()  # expect: GL201
                nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                optimizer.step()


def train_regression(model, loader, optimizer, accum_steps):
    model.train()
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.mse_loss(model(x), y, reduction="mean")
        (loss / accum_steps).backward()  # expect: GL201
        if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
