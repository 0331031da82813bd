"""A dual-system VLA trainer: `accelerator.prepare` wraps the system (DDP when several processes
run) whose forward returns its diffusion loss; the script counts the window by hand and never
gives the Accelerator one, so `accelerator.backward(loss)` divides by nothing."""

import contextlib
import torch
from accelerate import Accelerator


def finetune(cfg, dual_system, dataloader, optimizer, scheduler):
    accelerator = Accelerator(mixed_precision="bf16")
    dual_system, optimizer, dataloader, scheduler = accelerator.prepare(dual_system, optimizer, dataloader, scheduler)
    dual_system.train()
    for epoch in range(cfg.epochs):
        for step_idx, batch in enumerate(dataloader):
            sync_context = contextlib.nullcontext() if (step_idx + 1) % cfg.grad_accumulation_steps == 0 or step_idx + 1 == len(dataloader) else accelerator.no_sync(dual_system)
            with sync_context:
                slow_output, dp_loss = dual_system(batch)
                if cfg.freeze_slow:
                    loss = dp_loss
                else:
                    loss = dp_loss + slow_output.loss  # co-train
                accelerator.backward(loss / cfg.grad_accumulation_steps)  # expect: GL201, GL401
            if (step_idx + 1) % cfg.grad_accumulation_steps == 0 or step_idx + 1 == len(dataloader):  # expect: GL205
                accelerator.clip_grad_norm_(dual_system.parameters(), max_norm=1.0)
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
