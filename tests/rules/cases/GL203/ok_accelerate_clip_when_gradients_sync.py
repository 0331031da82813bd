import torch
from accelerate import Accelerator


def train(model, train_loader, epochs, accumulation_steps=8, lr=3e-4, max_grad_norm=None):
    accelerator = Accelerator(gradient_accumulation_steps=accumulation_steps, mixed_precision="bf16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)
    for epoch in range(epochs):
        for batch in train_loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                if max_grad_norm is not None and accelerator.sync_gradients:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()
