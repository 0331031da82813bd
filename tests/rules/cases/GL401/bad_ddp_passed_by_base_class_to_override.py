import torch
from torch.nn.parallel import DistributedDataParallel


class BaseTrainTester:
    def __init__(self, args):
        self.args = args

    def main(self, model, loader, criterion):
        model = DistributedDataParallel(model.cuda(self.args.local_rank), device_ids=[self.args.local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.args.lr)
        for step_id, sample in enumerate(loader):
            self.train_one_step(model, criterion, optimizer, step_id, sample)

    def train_one_step(self, model, criterion, optimizer, step_id, sample):
        raise NotImplementedError


class TrainTester(BaseTrainTester):
    """The override gets the DDP model the inherited `main` builds."""

    def train_one_step(self, model, criterion, optimizer, step_id, sample):
        if step_id % self.args.accumulate_grad_batches == 0:
            optimizer.zero_grad()
        out = model(sample["rgbs"], sample["pcds"])
        loss = criterion(out, sample["action"]) / self.args.accumulate_grad_batches
        loss.backward()  # expect: GL401
        if step_id % self.args.accumulate_grad_batches == self.args.accumulate_grad_batches - 1:  # expect: GL205
            optimizer.step()
