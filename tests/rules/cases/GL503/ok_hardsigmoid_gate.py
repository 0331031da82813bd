import torch.nn as nn
import torch.nn.functional as F

gate = nn.Hardsigmoid()
criterion = nn.BCEWithLogitsLoss()
for x, y in loader:
    h = backbone(x) * gate(attn(x))
    loss = criterion(head(h), y)
    loss.backward()
    score = F.hardsigmoid(h).mean()
