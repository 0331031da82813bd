import torch.nn as nn

criterion = nn.BCEWithLogitsLoss()
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
