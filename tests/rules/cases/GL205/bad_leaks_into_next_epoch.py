import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(epochs):
    for i, (x, y) in enumerate(train_loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
