import torch
import torch.amp as amp


def train(model, loader, optimizer, epochs):
    scaler = amp.GradScaler("cuda", init_scale=2.0 ** 12)  # expect: GL306
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with amp.autocast("cuda", dtype=torch.float16):  # expect: GL306
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
