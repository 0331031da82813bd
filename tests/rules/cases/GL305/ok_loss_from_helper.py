import torch

scaler = torch.amp.GradScaler("cuda")


def scaled_loss_of(model, batch):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    return scaler.scale(loss)


for batch in loader:
    optimizer.zero_grad()
    loss = scaled_loss_of(model, batch)
    loss.backward()
    scaler.step(optimizer)
    scaler.update()
