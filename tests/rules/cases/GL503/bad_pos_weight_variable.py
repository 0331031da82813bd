import torch
import torch.nn as nn

criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([5.0]).cuda())
for images, targets in train_loader:
    logits = model(images.cuda())
    preds = torch.sigmoid(logits)
    loss = criterion(preds, targets.cuda())  # expect: GL503
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    tp += ((preds > 0.5) & (targets.cuda() > 0.5)).sum().item()
