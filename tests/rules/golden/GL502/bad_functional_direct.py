import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)  # expect: GL502
        loss.backward()
        optimizer.step()
