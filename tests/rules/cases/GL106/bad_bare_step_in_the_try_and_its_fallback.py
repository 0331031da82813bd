"""The same trainer stepping its scheduler bare on both paths: before the optimizer, on
every iteration."""
import torch


def train_one_epoch(model, optimizer, train_loader, scheduler, accumulated_iter, optim_cfg):
    model.train()
    for cur_it, batch in enumerate(train_loader):
        if scheduler is not None:
            try:
                scheduler.step()  # expect: GL106
            except Exception:
                scheduler.step()  # expect: GL106
        optimizer.zero_grad()
        loss, tb_dict = model(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), optim_cfg.GRAD_NORM_CLIP)
        optimizer.step()
        accumulated_iter += 1
    return accumulated_iter
