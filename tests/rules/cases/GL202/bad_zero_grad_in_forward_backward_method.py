import torch
import torch.nn.functional as F

from models import ResNet50
from data import build_loader


class ClassificationTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = ResNet50(num_classes=cfg.num_classes).cuda()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")
        self.loader = build_loader(cfg)
        self.iteration = 0

    def forward_backward(self, images, labels):
        self.optimizer.zero_grad()  # expect: GL202
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(self.model(images), labels) / self.cfg.accum_steps
        self.scaler.scale(loss).backward()
        return loss.detach()

    def optimizer_step(self):
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def train_epoch(self):
        self.model.train()
        for images, labels in self.loader:
            loss = self.forward_backward(images.cuda(non_blocking=True), labels.cuda(non_blocking=True))
            self.iteration += 1
            if self.iteration % self.cfg.accum_steps == 0:
                self.optimizer_step()
            if self.iteration % 50 == 0:
                print(f"iter {self.iteration} loss {loss.item() * self.cfg.accum_steps:.3f}")
