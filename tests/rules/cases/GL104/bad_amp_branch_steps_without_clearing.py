"""Mixed precision on one side of a flag, fp32 on the other: only the fp32 side clears the
gradients, so with `--amp` every step adds to the gradients of all the batches before it."""
import torch


def train(model, loader, optimizer, epochs, use_amp):
    scaler = torch.amp.GradScaler("cuda") if use_amp else None
    for epoch in range(epochs):
        for batch in loader:
            if use_amp:
                with torch.autocast("cuda"):
                    loss = model(**batch).loss
                scaler.scale(loss).backward()
                scaler.step(optimizer)  # expect: GL104
                scaler.update()
            else:
                loss = model(**batch).loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
