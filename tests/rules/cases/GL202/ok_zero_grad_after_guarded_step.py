import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x_all = torch.randn(4096, 32)
y_all = x_all @ torch.randn(32, 1) + 0.1 * torch.randn(4096, 1)
loader = DataLoader(TensorDataset(x_all, y_all), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(32, 128), nn.Tanh(), nn.Linear(128, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()
accum_steps = 4

for epoch in range(20):
    optimizer.zero_grad()
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: last loss {loss.item() * accum_steps:.5f}")
