import torch
import torch.nn.functional as F
from torch import nn


class PairClassifier(nn.Module):
    def __init__(self, encoder, hidden=768):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(2 * hidden, 2)

    def predict_pair(self, ids_a, mask_a, ids_b, mask_b):
        pooled = torch.cat((self.encoder(ids_a, mask_a), self.encoder(ids_b, mask_b)), dim=1)
        return F.sigmoid(self.head(pooled))


def train(loader, optimizer, device):
    model = PairClassifier(build_encoder()).to(device)
    for ids_a, mask_a, ids_b, mask_b, labels in loader:
        optimizer.zero_grad()
        scores = model.predict_pair(ids_a, mask_a, ids_b, mask_b)
        loss = F.cross_entropy(scores, labels.view(-1))  # expect: GL502
        loss.backward()
        optimizer.step()
