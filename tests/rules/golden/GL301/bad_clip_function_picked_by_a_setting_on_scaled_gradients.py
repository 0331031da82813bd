"""A textual-inversion trainer picks its clipping function by a setting (value, norm or none) and
calls it under `if clip_grad:` once the window is complete; the gradients it clips are still
multiplied by the GradScaler's scale."""
import torch


def train_embedding(embedding, dataloader, optimizer, model, shared):
    clip_grad_mode = shared.opts.clip_grad_mode
    clip_grad = torch.nn.utils.clip_grad_value_ if clip_grad_mode == "value" else torch.nn.utils.clip_grad_norm_ if clip_grad_mode == "norm" else None
    gradient_step = shared.opts.gradient_step
    scaler = torch.amp.GradScaler("cuda")
    for step, batch in enumerate(dataloader):
        with torch.autocast("cuda"):
            loss = model.forward(batch.latent_sample.cuda(), batch.cond)[0] / gradient_step
        scaler.scale(loss).backward()
        if (step + 1) % gradient_step != 0 and step + 1 != len(dataloader):
            continue
        if clip_grad:
            scaler.unscale_(optimizer)
            clip_grad(embedding.vec, shared.opts.clip_grad_value)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
