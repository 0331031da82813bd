import torch
import torch.nn as nn

criterion = nn.BCEWithLogitsLoss()
for epoch in range(20):
    for features, labels in loader:
        optimizer.zero_grad()
        logits = model(features)
        loss = criterion(torch.sigmoid(logits), labels.float())  # expect: GL503
        loss.backward()
        optimizer.step()
