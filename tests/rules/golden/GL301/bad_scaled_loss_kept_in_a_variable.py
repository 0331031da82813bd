"""The scaled loss is kept in a name before its backward (`scaled = scaler.scale(loss)`), then
the whole model is clipped with no `unscale_`: the clip reads gradients still multiplied by the
loss scale, the same as with `scaler.scale(loss).backward()` in one line."""
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
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
