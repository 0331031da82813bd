import torch
import torch.nn.functional as F

accumulation_steps = 8
model = GPT(config).to("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))
scaler = torch.amp.GradScaler("cuda")

model.train()
for i, (x, y) in enumerate(train_loader):
    x, y = x.to("cuda"), y.to("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten()) / accumulation_steps
    scaler.scale(loss).backward()
    if (i + 1) % accumulation_steps == 0 or i + 1 == len(train_loader):  # expect: GL205
        scaler.step(optimizer)  # expect: GL302
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
