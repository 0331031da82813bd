import torch


class DiffusionWorker:
    """The window is a constructor parameter defaulting to 1, and the one construction leaves it
    there: every batch steps."""

    def __init__(self, model, loader, lr=1e-4, gradient_accumulate_every=1):
        self.model = model
        self.loader = loader
        self.gradient_accumulate_every = gradient_accumulate_every
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def train(self, epochs):
        for epoch in range(epochs):
            for index, images in enumerate(self.loader):
                self.opt.zero_grad()
                loss = self.model(images.cuda())
                loss.backward()
                if (index + 1) % self.gradient_accumulate_every == 0:
                    self.opt.step()


def main(model, loader):
    worker = DiffusionWorker(model, loader, lr=2e-4)
    worker.train(100)
