"""An SR-GAN wrapper in the style of image-restoration toolkits: the base class steps every
scheduler it keeps, and the script calls that before the iteration's optimizer steps."""
import torch
from torch.optim import lr_scheduler


class BaseModel:
    def __init__(self):
        self.schedulers = []
        self.optimizers = []

    def update_learning_rate(self, cur_iter, warmup_iter=-1):
        for scheduler in self.schedulers:
            scheduler.step()
        if cur_iter < warmup_iter:
            for optimizer in self.optimizers:
                for group in optimizer.param_groups:
                    group["lr"] = group["initial_lr"] * cur_iter / warmup_iter


class SRGANModel(BaseModel):
    def __init__(self, net_g, net_d, lr=1e-4):
        super().__init__()
        self.net_g, self.net_d = net_g, net_d
        self.optimizer_G = torch.optim.Adam(net_g.parameters(), lr=lr)
        self.optimizer_D = torch.optim.Adam(net_d.parameters(), lr=lr)
        self.optimizers += [self.optimizer_G, self.optimizer_D]
        for optimizer in self.optimizers:
            self.schedulers.append(lr_scheduler.MultiStepLR(optimizer, milestones=[50000, 100000], gamma=0.5))

    def feed_data(self, data):
        self.lr_img, self.hr_img = data

    def optimize_parameters(self, step):
        self.optimizer_G.zero_grad()
        fake = self.net_g(self.lr_img)
        loss_g = torch.nn.functional.l1_loss(fake, self.hr_img) - 1e-3 * self.net_d(fake).mean()
        loss_g.backward()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        loss_d = self.net_d(fake.detach()).mean() - self.net_d(self.hr_img).mean()
        loss_d.backward()
        self.optimizer_D.step()


def main(net_g, net_d, train_loader, niter, warmup_iter=-1):
    model = SRGANModel(net_g, net_d)
    current_step = 0
    for epoch in range(niter // len(train_loader) + 1):
        for _, train_data in enumerate(train_loader):
            current_step += 1
            if current_step > niter:
                break
            model.update_learning_rate(current_step, warmup_iter=warmup_iter)  # expect: GL106
            model.feed_data(train_data)
            model.optimize_parameters(current_step)
