"""One `iterate` function for both passes: it clears, backpropagates and steps only under
`if mode == "train":`. The epoch loop runs the training pass, steps the scheduler, then runs
the validation pass, `iterate(..., mode="val")`, which never steps."""
import torch


def iterate(model, data_loader, criterion, optimizer=None, mode="train", device=None):
    total = 0.0
    for x, y in data_loader:
        x, y = x.to(device), y.to(device)
        if mode != "train":
            with torch.no_grad():
                predictions = model(x)
        else:
            optimizer.zero_grad()
            predictions = model(x)
        loss = criterion(predictions, y)
        if mode == "train":
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total / len(data_loader)


def main(config, model, train_loader, val_loader, device):
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 40], gamma=0.1)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(config.epochs):
        model.train()
        train_loss = iterate(model, train_loader, criterion, optimizer=optimizer, mode="train", device=device)
        scheduler.step()
        if epoch % config.val_every == 0:
            model.eval()
            val_loss = iterate(model, val_loader, criterion, optimizer=optimizer, mode="val", device=device)
            print(epoch, train_loss, val_loss)
