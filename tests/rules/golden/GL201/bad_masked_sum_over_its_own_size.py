import torch


def train(model, loader, optimizer, accum_steps):
    """A masked sum divided by its own numel (1 for a scalar): no division by the window."""
    criterion = torch.nn.BCELoss(reduction="none")
    model.train()
    optimizer.zero_grad()
    for step, batch in enumerate(loader):
        sent_scores, mask = model(batch.src, batch.segs, batch.clss, batch.mask, batch.mask_cls)
        loss = criterion(sent_scores, batch.labels.float())
        loss = (loss * mask.float()).sum()
        ((loss / loss.numel()) / accum_steps).backward()  # expect: GL201
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
