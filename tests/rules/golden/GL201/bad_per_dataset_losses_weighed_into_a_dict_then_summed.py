"""Face recognition on several datasets at once: one shared backbone, one classification head
per dataset, each head's cross-entropy weighed by the dataset's share and kept in a dict that is
summed for the backward. The step waits for `cfg.gradient_acc` iterations, and nothing divides
the summed loss by that count."""

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
                weighted[i] = criterion(logits, labels[i]) * cfg.loss_w[i]
            loss = sum(weighted.values())
            amp.scale(loss / cfg.gradient_acc).backward()  # expect: GL201
            if global_step % cfg.gradient_acc == 0:
                amp.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(backbone.parameters(), 5)
                amp.step(opt)
                lr_scheduler.step()  # expect: GL204
                amp.update()
                opt.zero_grad()
