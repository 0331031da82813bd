import torch

model = build_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

for images, targets in data_loader:
    loss_dict = model(images, targets)
    losses = sum(loss for loss in loss_dict.values())
    optimizer.zero_grad()
    losses.backward()
    with torch.no_grad():
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)  # expect: GL102
    optimizer.step()
    logger.log(total_norm=total_norm)
