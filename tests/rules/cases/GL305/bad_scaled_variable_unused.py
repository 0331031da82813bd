import torch
import torch.nn.functional as F

scaler = torch.amp.GradScaler("cuda")
for epoch in range(epochs):
    for images, labels in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images), labels)
        scaled_loss = scaler.scale(loss)
        loss.backward()  # expect: GL305
        scaler.step(optimizer)
        scaler.update()
