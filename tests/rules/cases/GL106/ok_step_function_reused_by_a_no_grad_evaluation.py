"""A template solver runs one step function for training and evaluation: it steps only when the
model is in training mode. The batch loop steps a one-cycle schedule after each step; the
evaluation after it is decorated `@torch.no_grad()` and never steps."""
import torch


class Solver:
    def __init__(self, model, criterion, optimizer, scheduler, train_loader, test_loader):
        self.model, self.criterion = model, criterion
        self.optimizer, self.scheduler = optimizer, scheduler
        self.train_loader, self.test_loader = train_loader, test_loader
        self.scaler = torch.amp.GradScaler("cuda")

    def run_step(self, x, y):
        with torch.autocast("cuda"):
            loss = self.criterion(self.model(x), y)
        if self.model.training:
            self.optimizer.zero_grad()
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        total = sum(self.run_step(x, y) for x, y in self.test_loader)
        self.model.train()
        return total / len(self.test_loader)

    def train(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x, y in self.train_loader:
                self.run_step(x, y)
                self.scheduler.step()
            self.evaluate()
