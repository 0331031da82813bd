import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    """The model is wrapped by a static method that picks DataParallel, DDP or nothing."""

    def __init__(self, args, model, device, train_loader):
        self.args = args
        self.device = device
        self.train_loader = train_loader
        self.accumulate = max(1, round(64 / args.batch_size))
        self.model = self.parallel_model(args, model, device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.937)
        self.scaler = torch.amp.GradScaler("cuda", enabled=device.type != "cpu")
        self.last_opt_step = 0

    @staticmethod
    def parallel_model(args, model, device):
        if device.type != "cpu" and args.rank == -1 and torch.cuda.device_count() > 1:
            model = torch.nn.DataParallel(model)
        if device.type != "cpu" and args.rank != -1:
            model = DDP(model, device_ids=[args.local_rank], output_device=args.local_rank)
        return model

    def train_in_steps(self, step, images, targets):
        with torch.autocast("cuda", enabled=self.device.type != "cpu"):
            preds = self.model(images)
            total_loss = self.compute_loss(preds, targets) / self.accumulate
        self.scaler.scale(total_loss).backward()
        if step - self.last_opt_step >= self.accumulate:
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
            self.last_opt_step = step

    def train_one_epoch(self, epoch):
        for step, (images, targets) in enumerate(self.train_loader):
            self.train_in_steps(step + epoch * len(self.train_loader), images, targets)  # expect: GL401
