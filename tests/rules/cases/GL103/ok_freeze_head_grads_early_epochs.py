import torch


def cancel_head_gradients(epoch, model, freeze_epochs):
    """Keep the projection head fixed for the first epochs: drop only its gradients."""
    if epoch >= freeze_epochs:
        return
    for name, param in model.named_parameters():
        if "head" in name:
            param.grad = None


def train_one_epoch(model, loader, optimizer, scaler, epoch, args):
    model.train()
    for images, targets in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(images), targets)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        cancel_head_gradients(epoch, model, args.freeze_head_epochs)
        scaler.step(optimizer)
        scaler.update()
