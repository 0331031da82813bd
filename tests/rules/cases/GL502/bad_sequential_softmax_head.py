import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Flatten(),
    nn.Linear(28 * 28, 256),
    nn.ReLU(),
    nn.Linear(256, 10),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for images, labels in loader:
    optimizer.zero_grad()
    loss = criterion(model(images), labels)  # expect: GL502
    loss.backward()
    optimizer.step()
