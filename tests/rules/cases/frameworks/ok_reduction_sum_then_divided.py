import torch
import torch.nn as nn

from model import SimpleCNN
from data import mnist_loader

accum_steps = 4
batch_size = 32
model = SimpleCNN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss(reduction="sum")
loader = mnist_loader(batch_size=batch_size, drop_last=True)

for epoch in range(10):
    for i, (images, labels) in enumerate(loader):
        loss = criterion(model(images), labels)
        loss = loss / (accum_steps * batch_size)
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
