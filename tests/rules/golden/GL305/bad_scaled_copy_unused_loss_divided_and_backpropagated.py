"""The same trainer dividing the unscaled loss and backpropagating it: the scaled copy is never
used, and the scaler steps gradients that carry no scale."""
import torch


def masked_loss(criterion, masks, outputs, targets):
    losses = criterion(outputs.flatten(0, 1), targets.flatten())
    return (losses * masks.flatten()).sum() / masks.sum()


def train_epoch(model, train_loader, criterion, optimizer, scaler: torch.amp.GradScaler, accumulation_steps, device):
    use_accumulation = accumulation_steps > 0
    model.train()
    for i, (inputs, targets, masks) in enumerate(train_loader):
        inputs, targets, masks = inputs.to(device), targets.to(device), masks.to(device)
        with torch.amp.autocast("cuda"):
            loss = masked_loss(criterion, masks, model(inputs), targets)
        scaled_loss = scaler.scale(loss)
        if use_accumulation:
            loss = loss / accumulation_steps
        scaled_loss.backward()  # expect: GL305
        step = i + 1
        if not use_accumulation or step % accumulation_steps == 0 or step == len(train_loader):
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train(model, train_loader, criterion, epochs, accumulation_steps, device):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        train_epoch(model, train_loader, criterion, optimizer, scaler, accumulation_steps, device)
