import torch

scaler = torch.amp.GradScaler("cuda")


def train_step(model, optimizer, batch):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(batch["input_ids"], labels=batch["labels"]).loss
    scaled_loss = scaler.scale(loss)
    scaled_loss.backward()  # expect: GL305
    scaler.step(optimizer)
    scaler.update()
    return scaled_loss.item()
