import torch

scaler = torch.amp.GradScaler("cuda")


def training_step(model, batch, optimizer):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: GL303
    return loss.item()


def fit(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for batch in loader:
            training_step(model, batch, optimizer)
