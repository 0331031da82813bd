import torch

scaler = torch.amp.GradScaler("cuda")


def train(model, loader, optimizer, max_norm=1.0):
    model.train()
    for step, (inputs, labels) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(inputs, labels=labels).loss
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)  # expect: GL303
        optimizer.zero_grad(set_to_none=True)
