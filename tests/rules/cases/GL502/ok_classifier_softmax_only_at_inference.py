"""A classifier whose forward turns its scores into probabilities only in eval mode; training
runs in train mode, so cross-entropy gets the logits."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, encoder, hidden, num_classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, x):
        scores = self.head(self.encoder(x))
        if not self.training:
            scores = F.softmax(scores, dim=1)
        return scores


def main(encoder, loader, hidden=512, num_classes=10, epochs=30):
    model = Classifier(encoder, hidden, num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(epochs):
        model.train()
        for images, labels in loader:
            scores = model(images)
            loss = F.cross_entropy(scores, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
