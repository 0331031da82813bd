"""GRPO policy updates in fp16: gradients are unscaled for the clip, and a batch whose norm is
not finite (exactly what an overflow under a GradScaler gives) is skipped with `continue` before
`scaler.update()`: the next batch's unscale_ raises."""
import torch


def policy_update(model, optimizer, episodes, batch_size, grad_clip, dtype):
    scaler = torch.amp.GradScaler("cuda", enabled=(dtype == torch.float16))
    for start in range(0, len(episodes), batch_size):
        batch = episodes[start : start + batch_size]
        with torch.autocast("cuda", dtype=dtype):
            loss = model.grpo_loss(batch)
        if not torch.isfinite(loss):
            continue
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # expect: GL304
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        if not torch.isfinite(norm):
            optimizer.zero_grad(set_to_none=True)
            continue
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
