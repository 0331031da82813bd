import torch.nn as nn
import torch.nn.functional as F

criterion = nn.CrossEntropyLoss()
for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        logits = model(x)
        probs = F.softmax(logits, dim=1)
        loss = criterion(probs, y)  # expect: GL502
        loss.backward()
        optimizer.step()
        correct += (probs.argmax(1) == y).sum().item()
