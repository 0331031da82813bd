import torch
import torch.nn as nn


class SegTrainer:
    def __init__(self, model, loader, cfg):
        self.model = model.cuda()
        self.loader = loader
        self.cfg = cfg
        self.criterion = nn.CrossEntropyLoss(ignore_index=255)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=1e-4)
        self.iteration = 0

    def train_epoch(self):
        self.model.train()
        for i, (image, mask) in enumerate(self.loader):
            image, mask = image.cuda(), mask.cuda()
            out = self.model(image)["out"]
            loss = self.criterion(out, mask) / self.cfg.accum_steps
            loss.backward()
            if (i + 1) % self.cfg.accum_steps == 0 or i + 1 == len(self.loader):  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()  # expect: GL202
                self.iteration += 1
            if i % self.cfg.print_freq == 0:
                print(f"iter {self.iteration} loss {loss.item():.4f}")
