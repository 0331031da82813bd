"""A semi-supervised trainer whose epoch loop reaches the batch loop through two of its methods:
the cosine schedule steps before any of the epoch's updates."""
import torch
import torch.nn.functional as F


class VATTrainer:
    def __init__(self, model, optimizer, xi=1e-6, eps=8.0, print_freq=50):
        self.model = model
        self.optimizer = optimizer
        self.xi, self.eps, self.print_freq = xi, eps, print_freq

    def vat_loss(self, x, logits):
        d = torch.randn_like(x, requires_grad=True)
        adv_logits = self.model(x + self.xi * d)
        dist = F.kl_div(F.log_softmax(adv_logits, 1), F.softmax(logits.detach(), 1), reduction="batchmean")
        grad = torch.autograd.grad(dist, d)[0]
        r_adv = self.eps * F.normalize(grad.flatten(1), dim=1).view_as(x)
        return F.kl_div(F.log_softmax(self.model(x + r_adv), 1), F.softmax(logits.detach(), 1), reduction="batchmean")

    def train_iteration(self, data_loader, print_freq):
        for batch_idx, (x, y) in enumerate(data_loader):
            logits = self.model(x)
            loss = F.cross_entropy(logits, y, ignore_index=-1) + self.vat_loss(x, logits)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if batch_idx % print_freq == 0:
                print(f"[{batch_idx}] loss {loss.item():.3f}")

    def train(self, data_loader, print_freq=20):
        self.model.train()
        with torch.enable_grad():
            return self.train_iteration(data_loader, print_freq)

    def loop(self, epochs, train_data, test_data, scheduler=None):
        for ep in range(epochs):
            self.epoch = ep
            if scheduler is not None: scheduler.step()  # expect: GL106
            self.train(train_data, self.print_freq)
