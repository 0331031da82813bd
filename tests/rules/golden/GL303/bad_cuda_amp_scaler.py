import torch
import torch.nn as nn

criterion = nn.L1Loss()
scaler = torch.amp.GradScaler("cuda")
for epoch in range(start_epoch, opt.n_epochs):
    for i, (lr_imgs, hr_imgs) in enumerate(dataloader):
        optimizer_G.zero_grad()
        with torch.autocast("cuda"):
            sr_imgs = generator(lr_imgs.cuda())
            loss_G = criterion(sr_imgs, hr_imgs.cuda())
        scaler.scale(loss_G).backward()
        scaler.step(optimizer_G)  # expect: GL303
        scaler.update()
