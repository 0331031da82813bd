import torch

scaler = torch.amp.GradScaler("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
for batch in train_loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    optimizer.zero_grad(set_to_none=True)  # expect: GL103
    scaler.step(optimizer)
    scaler.update()
