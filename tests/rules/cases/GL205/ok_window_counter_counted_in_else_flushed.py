import torch
import torch.nn as nn


def run_fold(model, optimizer, scheduler, train_loader, device, epochs, accumulation_steps):
    """As a window's count kept in the else branch, but the epoch's last batch steps whatever
    the window holds."""
    criterion = nn.MSELoss()
    optimizer.zero_grad()
    for epoch in range(epochs):
        model.train()
        count = 0
        for index, batch in enumerate(train_loader):
            output = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
            loss = criterion(output.squeeze(1), batch["target"].to(device)) / accumulation_steps
            loss.backward()
            if (count + 1) % accumulation_steps == 0 or index == len(train_loader) - 1:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                count = 0
            else:
                count += 1
