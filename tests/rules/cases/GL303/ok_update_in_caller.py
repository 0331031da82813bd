import torch

scaler = torch.amp.GradScaler("cuda")


def train_step(model, batch, optimizer):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    optimizer.zero_grad()
    return loss.detach()


for epoch in range(3):
    for batch in loader:
        loss = train_step(model, batch, optimizer)
        scaler.update()
