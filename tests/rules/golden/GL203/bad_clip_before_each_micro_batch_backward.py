"""A VLA fine-tuning script clipping at the top of every micro-batch, before its backward, while
the step waits for the window: each clip acts on the partial sum of the window so far (GL203),
and none on the gradients the step will use (GL102)."""

import torch


def finetune(vla, dataloader, optimizer, scheduler, grad_accumulation_steps, max_grad_norm, max_steps):
    vla.train()
    optimizer.zero_grad()
    for batch_idx, batch in enumerate(dataloader):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = vla(input_ids=batch["input_ids"], pixel_values=batch["pixel_values"], labels=batch["labels"]).loss
        normalized_loss = loss / grad_accumulation_steps
        normalized_loss.backward()
        gradient_step_idx = batch_idx // grad_accumulation_steps
        if (batch_idx + 1) % grad_accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(vla.parameters(), max_norm=max_grad_norm)  # expect: GL102, GL203
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        if gradient_step_idx == max_steps:
            break
