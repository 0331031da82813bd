"""Face recognition on several datasets at once, each head's weighed cross-entropy kept in a dict
summed for the backward: every entry is also divided by `cfg.gradient_acc`, the iterations the
step waits for, so the window's gradients are its mean."""

import torch


def train(cfg, backbone, heads, loaders, opt, lr_scheduler):
    criterion = torch.nn.CrossEntropyLoss()
    amp = torch.amp.GradScaler("cuda")
    global_step = 0
    for epoch in range(cfg.num_epoch):
        for batch_index in range(cfg.steps_per_epoch):
            global_step += 1
            images, labels = [], {}
            for i, loader in enumerate(loaders):
                img, lab = next(loader)
                images.append(img)
                labels[i] = lab
            embeddings = torch.split(backbone(torch.cat(images)), [len(x) for x in images])
            weighted = {}
            for i in range(len(loaders)):
                logits = heads[i](embeddings[i])
                weighted[i] = criterion(logits, labels[i]) * cfg.loss_w[i] / cfg.gradient_acc
            loss = sum(weighted.values())
            amp.scale(loss).backward()
            if global_step % cfg.gradient_acc == 0:
                amp.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(backbone.parameters(), 5)
                amp.step(opt)
                amp.update()
                opt.zero_grad()
            lr_scheduler.step()  # expect: GL204
