import logging
import math

import torch

logger = logging.getLogger(__name__)


def train(task, optimizer, train_dataloader, config, device="cuda"):
    accum_grad_steps = 0
    for step, batch in enumerate(train_dataloader):
        batch = {k: v.to(device) for k, v in batch.items()}
        loss = task.train_step(**batch) / config.gradient_accumulate_steps
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(task.parameters(), max_norm=config.gradient_clipping)  # expect: GL203
        if math.isnan(grad_norm):
            # drop the window: its gradients are not finite
            logger.warning(f"Grad norm is NaN at step {step}")
            optimizer.zero_grad()
            accum_grad_steps = 0
        else:
            accum_grad_steps += 1
            if accum_grad_steps == config.gradient_accumulate_steps:
                optimizer.step()
                optimizer.zero_grad()
                accum_grad_steps = 0
