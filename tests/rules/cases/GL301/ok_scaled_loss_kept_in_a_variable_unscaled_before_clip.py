"""The scaled loss is kept in a name, and the optimizer's gradients are unscaled before the
clip: the threshold acts on true gradients."""
import torch

scaler = torch.amp.GradScaler("cuda")


def train_one_epoch(model, loader, optimizer, max_norm=1.0):
    model.train()
    for images, targets in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(images.cuda()), targets.cuda())
        scaled_loss = scaler.scale(loss)
        scaled_loss.backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
