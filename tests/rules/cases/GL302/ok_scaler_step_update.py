import torch
import torch.nn.functional as F

model = ResNet50().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
scaler = torch.amp.GradScaler("cuda")

for epoch in range(90):
    for images, labels in train_loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images.cuda()), labels.cuda())
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
