import torch
from rich.live import Live


def train_epochs(model, loader, optimizer, criterion, epochs, accumulation_steps=4):
    for epoch in range(epochs):
        i = 0
        with Live("", auto_refresh=False) as status:
            for batch in loader:
                loss = criterion(model(batch["x"]), batch["y"]) / accumulation_steps
                loss.backward()
                if (1 + i) % accumulation_steps == 0 or i + 1 == len(loader):  # expect: GL205
                    optimizer.step()
                    optimizer.zero_grad()
                status.update(f"epoch {epoch} batch {i}", refresh=True)
                i += 1
