import torch
import torch.nn as nn
from torch import optim
from tqdm import tqdm


class RecommenderTrainer:
    def __init__(self, args, model, train_loader, val_loader):
        self.args = args
        self.model = model.to(args.device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = optim.Adam(self.model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
        self.lr_scheduler = optim.lr_scheduler.StepLR(self.optimizer, step_size=args.decay_step, gamma=args.gamma)
        self.criterion = nn.CrossEntropyLoss(ignore_index=0)

    def train(self):
        for epoch in range(self.args.num_epochs):
            self.train_one_epoch(epoch)
            self.validate(epoch)

    def train_one_epoch(self, epoch):
        self.model.train()
        progress = tqdm(self.train_loader)
        for batch in progress:
            seqs, labels = (x.to(self.args.device) for x in batch)
            self.optimizer.zero_grad()
            logits = self.model(seqs)
            loss = self.criterion(logits.view(-1, logits.size(-1)), labels.view(-1))
            loss.backward()
            self.optimizer.step()
            progress.set_description(f"epoch {epoch + 1}, loss {loss.item():.3f}")
        if self.args.enable_lr_schedule:
            self.lr_scheduler.step()  # expect: GL106

    @torch.no_grad()
    def validate(self, epoch):
        self.model.eval()
        for batch in self.val_loader:
            seqs, labels = (x.to(self.args.device) for x in batch)
            self.model(seqs)
