"""A PPO update keeps its losses in a TensorDict and divides every entry by the accumulation
window with `losses.apply(lambda x: x / n)` before it backpropagates the total."""
import torch


def ppo_update(policy, optimizer, scaler, batcher, ppo_losses, grad_accumulation_steps):
    for i, batch in enumerate(batcher):
        step_this_batch = (i + 1) % grad_accumulation_steps == 0 or i + 1 == len(batcher)
        with torch.autocast("cuda", dtype=torch.float16):
            losses = ppo_losses(batch, policy(batch))
            losses = losses.apply(lambda x: x / grad_accumulation_steps)
        scaler.scale(losses["total"]).backward()
        if step_this_batch:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 5.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
