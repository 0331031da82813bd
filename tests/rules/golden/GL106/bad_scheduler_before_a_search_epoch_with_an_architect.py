"""DARTS search: the epoch loop steps the weights' cosine schedule before the epoch's training,
skipping its first value. The architect's own `virtual_step` (a one-step look-ahead on a copy of
the weights) is a method of the project, not an optimizer handing gradients to a framework."""

import copy

import torch


class Architect:
    def __init__(self, net, w_momentum, w_weight_decay):
        self.net = net
        self.v_net = copy.deepcopy(net)
        self.w_momentum = w_momentum
        self.w_weight_decay = w_weight_decay

    def virtual_step(self, trn_X, trn_y, xi, w_optim):
        loss = self.net.loss(trn_X, trn_y)
        gradients = torch.autograd.grad(loss, self.net.weights())
        with torch.no_grad():
            for w, vw, g in zip(self.net.weights(), self.v_net.weights(), gradients):
                vw.copy_(w - xi * (g + self.w_weight_decay * w))

    def unrolled_backward(self, trn_X, trn_y, val_X, val_y, xi, w_optim):
        self.virtual_step(trn_X, trn_y, xi, w_optim)
        loss = self.v_net.loss(val_X, val_y)
        v_alphas = tuple(self.v_net.alphas())
        v_grads = torch.autograd.grad(loss, v_alphas)
        with torch.no_grad():
            for alpha, da in zip(self.net.alphas(), v_grads):
                alpha.grad = da


def train(train_loader, valid_loader, model, architect, w_optim, alpha_optim, lr, grad_clip):
    model.train()
    for step, ((trn_X, trn_y), (val_X, val_y)) in enumerate(zip(train_loader, valid_loader)):
        alpha_optim.zero_grad()
        architect.unrolled_backward(trn_X, trn_y, val_X, val_y, lr, w_optim)
        alpha_optim.step()
        w_optim.zero_grad()
        loss = model.loss(trn_X, trn_y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.weights(), grad_clip)
        w_optim.step()


def main(config, model, train_loader, valid_loader):
    w_optim = torch.optim.SGD(model.weights(), config.w_lr, momentum=config.w_momentum)
    alpha_optim = torch.optim.Adam(model.alphas(), config.alpha_lr, betas=(0.5, 0.999))
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(w_optim, config.epochs, eta_min=config.w_lr_min)
    architect = Architect(model, config.w_momentum, config.w_weight_decay)
    for epoch in range(config.epochs):
        lr = lr_scheduler.get_lr()[0]
        train(train_loader, valid_loader, model, architect, w_optim, alpha_optim, lr, config.grad_clip)
        lr_scheduler.step()  # expect: GL106
