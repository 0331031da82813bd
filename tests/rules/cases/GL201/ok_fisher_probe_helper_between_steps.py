"""A sparse-SAM style optimizer refreshing its mask every few epochs: `update_mask` runs a
backward per training example, reads the squared gradients into a Fisher estimate and clears
them before the next one. No step ever applies those gradients: it is a probe, not a window."""

import torch


class FisherMaskedSGD(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, num_samples=128, update_freq=5):
        super().__init__(params, dict(lr=0.1))
        self.base_optimizer = base_optimizer
        self.num_samples = num_samples
        self.update_freq = update_freq

    @torch.no_grad()
    def update_mask(self, model, train_data):
        fisher = {id(p): torch.zeros_like(p) for group in self.param_groups for p in group["params"]}
        loader = torch.utils.data.DataLoader(train_data, batch_size=1, shuffle=True)
        criterion = torch.nn.CrossEntropyLoss()
        with torch.enable_grad():
            for idx, (image, label) in enumerate(loader):
                if idx >= self.num_samples:
                    break
                loss = criterion(model(image.cuda()), label.cuda())
                loss.backward()
                for group in self.param_groups:
                    for p in group["params"]:
                        fisher[id(p)] += torch.square(p.grad).data
                model.zero_grad()
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["mask"] = fisher[id(p)] > fisher[id(p)].median()

    @torch.no_grad()
    def step(self, closure=None, model=None, epoch=None, batch_idx=None, train_data=None):
        self.base_optimizer.step()
        self.zero_grad()
        if epoch % self.update_freq == 0 and batch_idx == 0:
            self.update_mask(model, train_data)
