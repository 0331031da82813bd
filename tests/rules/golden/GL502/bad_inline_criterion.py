import torch
import torch.nn as nn

for x, y in loader:
    out = net(x)
    loss = nn.CrossEntropyLoss()(out, y)  # expect: GL502
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
