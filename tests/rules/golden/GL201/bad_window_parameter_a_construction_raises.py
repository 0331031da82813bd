import torch


class DiffusionWorker:
    """The window is a constructor parameter defaulting to 1, and the one construction raises it
    to 4: the undivided loss accumulates, and the clear on every batch drops the window."""

    def __init__(self, model, loader, lr=1e-4, gradient_accumulate_every=1):
        self.model = model
        self.loader = loader
        self.gradient_accumulate_every = gradient_accumulate_every
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def train(self, epochs):
        for epoch in range(epochs):
            for index, images in enumerate(self.loader):
                loss = self.model(images.cuda())
                (loss / self.gradient_accumulate_every).backward()  # expect: GL201
                if (index + 1) % self.gradient_accumulate_every == 0 or index + 1 == len(self.loader):  # expect: GL205
                    self.opt.step()
                    self.opt.zero_grad()  # expect: GL202


def main(model, loader):
    worker = DiffusionWorker(model, loader, lr=2e-4, gradient_accumulate_every=4)
    worker.train(100)
