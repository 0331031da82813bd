"""Full-batch gradient descent on a small tabular dataset: one update per pass over the loader."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def fit(features, targets, epochs=200, batch_size=512):
    model = nn.Sequential(nn.Linear(features.shape[1], 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.MSELoss()
    train_loader = DataLoader(TensorDataset(features, targets), batch_size=batch_size)
    for epoch in range(epochs):
        optimizer.zero_grad()
        for x, y in train_loader:
            loss = criterion(model(x), y)
            loss.backward()  # expect: GL201
        optimizer.step()
        if epoch % 20 == 0:
            print(f"epoch {epoch}: last batch loss {loss.item():.4f}")
    return model
