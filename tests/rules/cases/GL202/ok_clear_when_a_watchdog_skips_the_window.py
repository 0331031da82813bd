"""ControlNet fine-tune with a gradient watchdog: when the check says the gradients are bad it
clears them and raises a flag that keeps the step from running; the clear throws a broken
window away, it does not run on every micro-batch."""
import torch


def train(controlnet, loader, optimizer, scheduler, watchdog, accumulation_steps, compute_loss, epochs):
    global_step = 0
    for epoch in range(epochs):
        for batch in loader:
            loss = compute_loss(controlnet, batch) / accumulation_steps
            loss.backward()
            skip_step = False
            if watchdog is not None:
                action = watchdog.check(controlnet.parameters(), loss.item(), global_step)
                if action == "skip":
                    optimizer.zero_grad()
                    skip_step = True
            if not skip_step and (global_step + 1) % accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(controlnet.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            global_step += 1
