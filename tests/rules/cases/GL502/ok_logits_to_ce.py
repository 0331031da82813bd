import torch.nn as nn

criterion = nn.CrossEntropyLoss()
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
