import torch


def finetune(cfg, vla, dataloader, optimizer, scheduler):
    """One pass over an endless stream, stopped at a number of updates derived from the index."""
    vla.train()
    optimizer.zero_grad()
    for batch_idx, batch in enumerate(dataloader):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = vla(**batch).loss
        (loss / cfg.grad_accumulation_steps).backward()
        gradient_step_idx = batch_idx // cfg.grad_accumulation_steps
        log_step = gradient_step_idx if not cfg.resume else cfg.resume_step + gradient_step_idx
        if (batch_idx + 1) % cfg.grad_accumulation_steps == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        if log_step == cfg.max_steps:
            print(f"Max step {cfg.max_steps} reached")
            break
