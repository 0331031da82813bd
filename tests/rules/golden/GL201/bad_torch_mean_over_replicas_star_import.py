from utils.utils import *  # torch and the logging helpers come from here

from models import Darknet


def train(cfg, dataloader, epochs=30, lr=1e-2, accumulated_batches=4):
    model = torch.nn.DataParallel(Darknet(cfg)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        for i, (imgs, targets) in enumerate(dataloader):
            loss, components = model(imgs.cuda(), targets.cuda())
            # DataParallel gathers one loss per replica: average them
            loss = torch.mean(loss)
            (loss / accumulated_batches).backward()  # expect: GL201
            if (i + 1) % accumulated_batches == 0 or i == len(dataloader) - 1:
                optimizer.step()
                optimizer.zero_grad()
