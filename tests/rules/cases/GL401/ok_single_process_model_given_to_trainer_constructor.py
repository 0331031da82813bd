import torch


class Trainer:
    """Steps once every `stride_apply` batches; one process, so nothing to all-reduce."""

    def __init__(self, model, loss, optimizer, *, stride_apply=1, clip=None):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.stride_apply = stride_apply
        self.clip = clip

    def train_batch(self, data, targets, apply_gradients=True):
        outputs = self.model(data)
        loss = self.loss(outputs, targets) / self.stride_apply
        loss.backward()
        if apply_gradients:
            if self.clip is not None:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.optimizer.step()
            self.optimizer.zero_grad()
        return loss.item()

    def train(self, scenes, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        for batch_idx, (data, targets) in enumerate(scenes):
            apply_gradients = (batch_idx + 1) % self.stride_apply == 0 or batch_idx + 1 == len(scenes)
            self.train_batch(data, targets, apply_gradients)


def main(args, net_cpu, loss, optimizer, train_loader):
    net = net_cpu.to(args.device)
    trainer = Trainer(net, loss, optimizer, stride_apply=args.stride_apply, clip=args.clip)
    for epoch in range(args.epochs):
        trainer.train(train_loader, epoch)
