import torch


class ClassifierConfig:
    lr = 3e-4
    epochs = 10
    accumulation_step = 1


def train_one_epoch(loader, model, optimizer, accumulation_step, device):
    model.train()
    for idx, (images, labels) in enumerate(loader, 1):
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(images.to(device)), labels.to(device))
        loss.backward()
        if idx % accumulation_step == 0:
            optimizer.step()


class TrainProcess:
    def __init__(self, config=ClassifierConfig):
        self.config = config

    def fit(self, loader, model, device):
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.config.lr)
        for epoch in range(self.config.epochs):
            train_one_epoch(loader, model, optimizer, self.config.accumulation_step, device)


def main(loader, model):
    TrainProcess(ClassifierConfig).fit(loader, model, "cuda")
