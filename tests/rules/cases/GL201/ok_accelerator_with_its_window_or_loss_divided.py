"""Two Accelerate loops that accumulate correctly: one hands its window to the Accelerator and
accumulates inside `accumulate(...)`, where `accelerator.backward` divides; the other builds an
Accelerator without a window and divides the loss itself."""
from accelerate import Accelerator


def train_with_window(model, optimizer, loader, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(**batch).loss)
            optimizer.step()
            optimizer.zero_grad()


def train_divided_by_hand(model, optimizer, loader, accum=4):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for step, batch in enumerate(loader):
        accelerator.backward(model(**batch).loss / accum)  # expect: GL401
        if (step + 1) % accum == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
