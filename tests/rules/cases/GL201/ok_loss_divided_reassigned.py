import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
features = torch.randn(2048, 64)
labels = torch.randint(0, 10, (2048,))
loader = DataLoader(TensorDataset(features, labels), batch_size=16, shuffle=True)

model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Dropout(0.1), nn.Linear(256, 10))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
criterion = nn.CrossEntropyLoss()
accum_steps = 8
log_every = 50

running_loss = 0.0
for epoch in range(10):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        running_loss += loss.item()
        loss = loss / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
        if (i + 1) % log_every == 0:
            print(f"epoch {epoch} it {i + 1}: loss {running_loss / log_every:.4f}")
            running_loss = 0.0
