"""Motion-forecasting trainer (OpenPCDet lineage): the scheduler is stepped with the iteration
count, an explicit position in its schedule; the bare call in the `except` only stands in for
schedulers that take no argument, and follows the same convention."""
import torch


def train_one_epoch(model, optimizer, train_loader, scheduler, accumulated_iter, optim_cfg):
    model.train()
    for cur_it, batch in enumerate(train_loader):
        if scheduler is not None:
            try:
                scheduler.step(accumulated_iter)
            except Exception:
                scheduler.step()
        optimizer.zero_grad()
        loss, tb_dict = model(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), optim_cfg.GRAD_NORM_CLIP)
        optimizer.step()
        accumulated_iter += 1
    return accumulated_iter
