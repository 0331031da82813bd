import torch
import torch.nn as nn


def train_probe(backbone, loader, num_classes, epochs=10):
    """A linear probe that ends in a softmax, and a criterion moved to the GPU: `.cuda()` and
    `.to(...)` return the same modules."""
    probe = nn.Sequential(nn.LazyLinear(num_classes), nn.Softmax(dim=-1)).to("cuda")
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.Adam(probe.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for images, labels in loader:
            with torch.no_grad():
                features = backbone(images.cuda())
            pred = probe(features)
            loss = criterion(pred, labels.cuda())  # expect: GL502
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
