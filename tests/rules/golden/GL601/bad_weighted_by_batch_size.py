import torch.nn.functional as F

train_loss = 0.0
for images, targets in train_loader:
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), targets)
    loss.backward()
    optimizer.step()
    train_loss += loss.item() * images.size(0)  # expect: GL601
train_loss = train_loss / len(train_loader.dataset)
