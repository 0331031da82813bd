import torch
import torch.nn as nn

for x, y in loader:
    out = net(x)
    loss = nn.CrossEntropyLoss()(torch.softmax(out, 1), y)  # expect: GL502
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
