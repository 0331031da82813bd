import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def train(args, loader, model, optimizer, criterion):
    model.train()
    running = 0.0
    for step, (volume, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(volume.cuda()), target.cuda())
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / len(loader)


def main(args, model, loader, criterion):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-5)
    scheduler = CosineAnnealingLR(optimizer, T_max=args.max_epoch)
    epoch = 0
    while epoch < args.max_epoch:
        mean_loss = train(args, loader, model, optimizer, criterion)
        scheduler.step()  # expect: GL106
        print(f"epoch {epoch}: loss {mean_loss:.4f} lr {scheduler.get_last_lr()[0]:.2e}")
        epoch += 1
