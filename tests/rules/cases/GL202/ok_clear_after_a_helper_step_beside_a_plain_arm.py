"""A BEiT-style fine-tuning epoch with two exclusive arms: the loss-scaler helper (the project's
own, in another package) backpropagates and steps at the window's end, then the clear; or,
without a scaler, a plain backward and a step at the window's end. The clear of the first arm
never runs before the second arm's backward."""
import torch

from beit.utils import NativeScalerWithGradNormCount as NativeScaler


def train_one_epoch(model, criterion, data_loader, optimizer, loss_scaler, max_norm=None, update_freq=4):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        samples, targets = samples.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        with torch.autocast("cuda", enabled=loss_scaler != "none"):
            loss = criterion(model(samples), targets)
        loss /= update_freq
        if loss_scaler != "none":
            loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters(),
                        update_grad=(data_iter_step + 1) % update_freq == 0)
            if (data_iter_step + 1) % update_freq == 0:
                optimizer.zero_grad()
        else:
            loss.backward()
            if (data_iter_step + 1) % update_freq == 0 or data_iter_step + 1 == len(data_loader):
                if max_norm is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                optimizer.step()
                optimizer.zero_grad()


def main(model, criterion, data_loader, epochs=30, amp=True):
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    loss_scaler = NativeScaler() if amp else "none"
    for epoch in range(epochs):
        train_one_epoch(model, criterion, data_loader, optimizer, loss_scaler, max_norm=1.0)
