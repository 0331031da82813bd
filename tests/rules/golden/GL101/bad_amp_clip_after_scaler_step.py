import torch
import torch.nn as nn
import torchvision

device = "cuda"
model = torchvision.models.resnet50(num_classes=100).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
criterion = nn.CrossEntropyLoss()
scaler = torch.amp.GradScaler("cuda")
train_set = torchvision.datasets.CIFAR100("data", train=True, download=True,
                                          transform=torchvision.transforms.ToTensor())
loader = torch.utils.data.DataLoader(train_set, batch_size=256, shuffle=True, num_workers=4)

for epoch in range(90):
    model.train()
    for step, (images, labels) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(images), labels)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)  # expect: GL101
        scaler.step(optimizer)
        scaler.update()
        if step % 50 == 0:
            print(f"[{epoch}/{step}] loss={loss.item():.3f} scale={scaler.get_scale():.0f}")
