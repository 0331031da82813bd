"""A test-time fine-tune receives an Accelerator that `main` built without an accumulation window
and accumulates by hand around `accelerator.backward(loss)`: with no window the accelerator
divides the loss by nothing, and the step every `grad_accum_steps` micro-batches applies their sum."""
import contextlib
from accelerate import Accelerator


def test_time_train(model, optimizer, loader, accelerator, grad_accum_steps=4, max_grad_norm=1.0):
    model.train()
    for step, batch in enumerate(loader):
        sync_context = contextlib.nullcontext() if (step + 1) % grad_accum_steps == 0 or step + 1 == len(loader) else accelerator.no_sync(model)
        with sync_context:
            with accelerator.autocast():
                loss = model(**batch).loss
            accelerator.backward(loss / grad_accum_steps)  # expect: GL201, GL401
        if (step + 1) % grad_accum_steps == 0 or step + 1 == len(loader):
            accelerator.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            optimizer.zero_grad()


def main(model, optimizer, loader):
    accelerator = Accelerator(mixed_precision="bf16")
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    test_time_train(model, optimizer, loader, accelerator)
