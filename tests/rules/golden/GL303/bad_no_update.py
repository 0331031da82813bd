import torch
import torch.nn.functional as F

model = VisionTransformer(img_size=224, patch_size=16).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
scaler = torch.amp.GradScaler("cuda")

for epoch in range(300):
    for images, targets in loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images.cuda()), targets.cuda(), label_smoothing=0.1)
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: GL303
        scaler.update()
