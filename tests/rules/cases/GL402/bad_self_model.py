import torch
from torch.nn.parallel import DistributedDataParallel


class DistTrainer:
    def __init__(self, net, rank, accumulate):
        self.model = DistributedDataParallel(net.to(rank), device_ids=[rank])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.accumulate = accumulate

    def epoch(self, loader):
        for it, (src, tgt) in enumerate(loader):
            loss = self.model(src, tgt).mean() / self.accumulate
            if (it + 1) % self.accumulate:
                with self.model.no_sync():  # expect: GL402
                    loss.backward()
                continue
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
