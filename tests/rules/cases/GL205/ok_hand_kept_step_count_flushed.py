import torch


def train(args, model, train_dataloader, optimizer):
    for epoch in range(args.epochs):
        seen = 0
        for inputs, labels in train_dataloader:
            seen += 1
            loss = torch.nn.functional.cross_entropy(model(inputs), labels) / args.accum
            loss.backward()
            if seen % args.accum == 0 or seen == len(train_dataloader):
                optimizer.step()
                optimizer.zero_grad()
