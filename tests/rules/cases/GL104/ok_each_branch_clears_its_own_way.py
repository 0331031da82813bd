"""Mixed precision on one side of a flag, fp32 on the other, and each side clears: the amp
side after its step, the fp32 side before its backward."""
import torch


def train(model, loader, optimizer, epochs, use_amp):
    scaler = torch.amp.GradScaler("cuda") if use_amp else None
    for epoch in range(epochs):
        for batch in loader:
            if use_amp:
                with torch.autocast("cuda"):
                    loss = model(**batch).loss
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
            else:
                loss = model(**batch).loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
