import torch
from torch import amp

model = YOLO(cfg).cuda()
scaler = amp.GradScaler("cuda", enabled=cuda)  # expect: GL306
for i, (imgs, targets, paths, _) in enumerate(dataloader):
    imgs = imgs.cuda(non_blocking=True).float() / 255
    with amp.autocast("cuda", enabled=cuda):  # expect: GL306
        pred = model(imgs)
        loss, loss_items = compute_loss(pred, targets.cuda())
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
