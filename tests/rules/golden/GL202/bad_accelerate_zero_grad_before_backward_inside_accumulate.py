"""A fine-tuning script clears at the top of `accelerator.accumulate(model)`. Accelerate's
prepared optimizer skips `zero_grad()` on the micro-batches that do not step, but on the one that
does it clears before that micro-batch's backward: the step sees only the last micro-batch."""
from accelerate import Accelerator


def train(model, optimizer, loader, scheduler, epochs=3, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum, mixed_precision="bf16")
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    for epoch in range(epochs):
        model.train()
        for batch in loader:
            with accelerator.accumulate(model):
                outputs = model(**batch)
                accelerator.backward(outputs.loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()  # expect: GL202
