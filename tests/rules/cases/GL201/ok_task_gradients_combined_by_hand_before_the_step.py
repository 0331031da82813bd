"""Multi-task dense prediction with PCGrad: each task's loss of the one forward pass is
backpropagated in turn, its shared-layer gradient copied out and cleared, and the combined
gradient written back into `.grad` before the single step."""
import torch

from mtl.data import nyu_loaders
from mtl.losses import compute_loss
from mtl.nets import MTLDeepLabv3
from mtl.surgery import pcgrad

TASKS = {"seg": 13, "depth": 1, "normal": 3}


def grad2vec(model, grads, grad_dims, task):
    grads[:, task].fill_(0.0)
    for cnt, param in enumerate(model.shared_parameters()):
        if param.grad is not None:
            beg = sum(grad_dims[:cnt])
            grads[beg:beg + grad_dims[cnt], task].copy_(param.grad.detach().view(-1))


def overwrite_grad(model, newgrad, grad_dims, num_tasks):
    newgrad = newgrad * num_tasks  # as the sum of the task losses would give
    for cnt, param in enumerate(model.shared_parameters()):
        beg = sum(grad_dims[:cnt])
        param.grad = newgrad[beg:beg + grad_dims[cnt]].contiguous().view(param.data.size()).clone()


def train(epochs=200, device="cuda"):
    model = MTLDeepLabv3(TASKS).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    grad_dims = [p.numel() for p in model.shared_parameters()]
    grads = torch.zeros(sum(grad_dims), len(TASKS), device=device)
    train_loader, _ = nyu_loaders(batch_size=4)
    for epoch in range(epochs):
        model.train()
        for images, targets in train_loader:
            images = images.to(device)
            optimizer.zero_grad()
            preds = model(images)
            task_losses = [compute_loss(preds[i], targets[task].to(device), task) for i, task in enumerate(TASKS)]
            for i in range(len(TASKS)):
                task_losses[i].backward(retain_graph=True)
                grad2vec(model, grads, grad_dims, i)
                model.zero_grad_shared_modules()
            combined = pcgrad(grads, len(TASKS))
            overwrite_grad(model, combined, grad_dims, len(TASKS))
            optimizer.step()
        scheduler.step()
