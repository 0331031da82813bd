"""The same trainer built with the switch set from the world size: on several processes the
model is DDP and every micro-batch of the window all-reduces."""
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
            loss.backward()  # expect: GL401
            if (step + 1) % self.args.gradient_accumulation == 0 or step + 1 == len(self.train_data):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()


def main(args, build_model, train_data):
    trainer = Trainer(build_model(args), args, train_data, distributed_training=args.world_size > 1)
    trainer.train()
