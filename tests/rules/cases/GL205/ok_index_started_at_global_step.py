import torch


def train(model, loader, optimizer, epochs, accumulation_steps):
    """The index starts where the last epoch stopped, so a window spans the epoch boundary."""
    global_step = 0
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader, start=global_step):
            loss = torch.nn.functional.mse_loss(model(x), y) / accumulation_steps
            loss.backward()
            if (step + 1) % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
            global_step = step + 1
