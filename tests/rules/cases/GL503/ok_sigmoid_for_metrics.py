import torch
import torch.nn as nn

criterion = nn.BCEWithLogitsLoss()
for x, y in loader:
    logits = model(x)
    loss = criterion(logits, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    probs = torch.sigmoid(logits)
    accuracy = ((probs > 0.5) == y.bool()).float().mean()
