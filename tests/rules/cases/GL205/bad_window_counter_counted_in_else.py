import torch
import torch.nn as nn


def run_fold(model, optimizer, scheduler, train_loader, device, epochs, accumulation_steps):
    """The window's count goes up on the micro-batches that do not step and back to zero on the
    one that does; it starts again at zero every epoch, but the gradients of an unfinished window
    are neither stepped nor cleared."""
    criterion = nn.MSELoss()
    optimizer.zero_grad()
    for epoch in range(epochs):
        model.train()
        count = 0
        for batch in train_loader:
            output = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
            loss = criterion(output.squeeze(1), batch["target"].to(device)) / accumulation_steps
            loss.backward()
            if (count + 1) % accumulation_steps == 0:  # expect: GL205
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                count = 0
            else:
                count += 1
