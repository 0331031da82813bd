"""Protein-model trainer with a DDP switch in its constructor; the script builds it once and
leaves the switch at its default of False, so the accumulating loop runs a bare model."""
import torch


class Trainer:
    def __init__(self, model, args, train_data, distributed_training=False):
        self.model = model
        self.args = args
        self.train_data = train_data
        self.distributed_training = distributed_training

    def train(self):
        if self.distributed_training:
            self.model = torch.nn.parallel.DistributedDataParallel(self.model)
        optimizer = self.model.create_optimizer()
        self.model.train()
        for step, batch in enumerate(self.train_data):
            loss = self.model(batch)["loss"] / self.args.gradient_accumulation
            loss.backward()
            if (step + 1) % self.args.gradient_accumulation == 0 or step + 1 == len(self.train_data):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()


def main(args, build_model, train_data):
    trainer = Trainer(build_model(args), args, train_data)
    trainer.train()
