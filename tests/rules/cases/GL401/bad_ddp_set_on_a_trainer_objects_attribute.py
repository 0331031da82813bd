"""A detector trainer object whose model the script replaces with a DDP wrapper; its
optimize_parameters() accumulates over a window without no_sync()."""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, opt, net):
        self.model = net
        self.loss_fn = torch.nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=opt.lr)
        self.accumulation_steps = opt.accumulation_steps
        self.current_step = 0

    def set_input(self, batch):
        self.input, self.label = batch

    def forward(self):
        self.output = self.model(self.input)

    def optimize_parameters(self):
        self.current_step += 1
        self.forward()
        self.loss = self.loss_fn(self.output.squeeze(1), self.label) / self.accumulation_steps
        self.loss.backward()
        if self.current_step % self.accumulation_steps == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()




def main(opt, net, loader, local_rank):
    model = Trainer(opt, net)
    model.model = DDP(model.model, device_ids=[local_rank])
    for epoch in range(opt.epochs):
        for data in loader:
            model.set_input(data)
            model.optimize_parameters()  # expect: GL401
