import torch


class ContinualLearner:
    """The scheduler steps as each epoch begins, the first one too: its first value is never
    used, and every epoch trains with the rate meant for the next."""

    def __init__(self, net, args):
        self.net = net
        self.opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.opt, milestones=args.milestones)
        self.loss = torch.nn.CrossEntropyLoss()
        self.old_epoch = 0

    def observe(self, inputs, labels, epoch):
        if self.scheduler is not None and self.old_epoch != epoch:
            self.scheduler.step()  # expect: GL106
            self.old_epoch = epoch
        self.opt.zero_grad()
        loss = self.loss(self.net(inputs), labels)
        loss.backward()
        self.opt.step()
        return loss.item()
