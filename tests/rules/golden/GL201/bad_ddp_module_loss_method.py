import torch


def finetune(config, base_model, train_dataloader, optimizer, args):
    """The loss comes from the classifier's own method, reached through DDP's `.module`."""
    base_model.zero_grad()
    for epoch in range(config.max_epoch):
        base_model.train()
        num_iter = 0
        for idx, (points, label) in enumerate(train_dataloader):
            num_iter += 1
            ret = base_model(points.cuda())
            loss, acc = base_model.module.get_loss_acc(ret, label.cuda())
            _loss = loss
            (_loss / config.step_per_update).backward()  # expect: GL201
            if num_iter == config.step_per_update:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(base_model.parameters(), 10, norm_type=2)
                num_iter = 0
                optimizer.step()
                base_model.zero_grad()
