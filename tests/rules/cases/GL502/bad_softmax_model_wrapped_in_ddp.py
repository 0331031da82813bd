"""A classifier whose forward ends in a softmax, wrapped in DistributedDataParallel by main() and
handed to the epoch function, which takes cross-entropy of its output."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class Classifier(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, classes))

    def forward(self, x):
        return F.softmax(self.body(x), dim=-1)


def train_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        probs = model(x.cuda())
        loss = F.cross_entropy(probs, y.cuda())  # expect: GL502
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(loader, local_rank, epochs=10):
    torch.distributed.init_process_group("nccl")
    model = DDP(Classifier(128, 10).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        train_epoch(model, loader, optimizer)
