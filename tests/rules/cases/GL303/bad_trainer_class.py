import torch
from torch import nn


class SegmentationTrainer:
    def __init__(self, net: nn.Module, lr: float):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
        self.scaler = torch.amp.GradScaler("cuda")
        self.criterion = nn.CrossEntropyLoss(ignore_index=255)

    def run_epoch(self, loader):
        for image, mask in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.criterion(self.net(image.cuda()), mask.cuda())
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)  # expect: GL303
