import torch


def train_one_epoch(model, train_loader, criterion, optimizer, cfg):
    model.train()
    num_iter = 0
    for idx, (points, labels) in enumerate(train_loader):
        points, labels = points.cuda(), labels.cuda()
        num_iter += 1
        loss = criterion(model(points), labels) / cfg.step_per_update
        loss.backward()
        if num_iter == cfg.step_per_update or idx + 1 == len(train_loader):
            num_iter = 0
            optimizer.step()
            optimizer.zero_grad()


def main(model, train_loader, criterion, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    for epoch in range(cfg.epochs):
        train_one_epoch(model, train_loader, criterion, optimizer, cfg)
