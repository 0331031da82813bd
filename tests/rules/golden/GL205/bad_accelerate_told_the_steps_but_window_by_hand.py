import contextlib
from accelerate import Accelerator


def train(model, optimizer, lr_scheduler, train_dataloader, epochs, accumulation_steps=8):
    # told the steps, but `accelerator.accumulate()` is never used: the loop keeps its own window
    accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=accumulation_steps)
    model, optimizer, lr_scheduler, train_dataloader = accelerator.prepare(model, optimizer, lr_scheduler, train_dataloader)
    for epoch in range(epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            sync_context = contextlib.nullcontext() if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_dataloader) else accelerator.no_sync(model)
            with sync_context:
                outputs = model(input_ids=batch["input_ids"], attention_mask=batch["input_mask"], labels=batch["target_ids"])
                accelerator.backward(outputs.loss)  # expect: GL401
            if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_dataloader):  # expect: GL205
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
