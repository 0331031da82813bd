import torch
import torch.nn.functional as F
from torch import nn


class PairClassifier(nn.Module):
    def __init__(self, encoder, hidden=768):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(2 * hidden, 2)

    def forward(self, ids_a, ids_b):
        return self.head(torch.cat((self.encoder(ids_a), self.encoder(ids_b)), dim=1))


def train(loader, optimizer, device):
    model = PairClassifier(build_encoder()).to(device)
    correct = 0
    for ids_a, ids_b, labels in loader:
        optimizer.zero_grad()
        logits = model(ids_a, ids_b)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        optimizer.step()
        probs = torch.sigmoid(logits)
        correct += (probs.argmax(dim=1) == labels).sum().item()
    return correct
