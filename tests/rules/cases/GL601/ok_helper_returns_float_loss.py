import torch


class Trainer:
    def __init__(self, model, optimizer, criterion, accumulate=1):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.accumulate = accumulate

    def train_batch(self, images, targets, apply_gradients):
        outputs = self.model(images)
        loss = self.criterion(outputs, targets)
        loss.backward()  # expect: GL201
        if apply_gradients:  # expect: GL205
            self.optimizer.step()
            self.optimizer.zero_grad()
        return float(loss.item())

    def train_epoch(self, loader):
        self.model.train()
        epoch_loss = 0.0
        self.optimizer.zero_grad()
        for batch_idx, (images, targets) in enumerate(loader):
            apply_gradients = (batch_idx + 1) % self.accumulate == 0
            loss = self.train_batch(images, targets, apply_gradients)
            epoch_loss += loss
        return epoch_loss / len(loader)


def main(model, loader, epochs):
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.01), torch.nn.CrossEntropyLoss(), accumulate=4)
    for epoch in range(epochs):
        print(epoch, trainer.train_epoch(loader))
