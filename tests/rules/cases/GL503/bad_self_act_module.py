import torch.nn as nn


class MultiLabelHead(nn.Module):
    def __init__(self, dim, n_labels):
        super().__init__()
        self.proj = nn.Linear(dim, n_labels)
        self.act = nn.Sigmoid()
        self.criterion = nn.BCEWithLogitsLoss()

    def forward(self, features, labels=None):
        scores = self.act(self.proj(features))
        if labels is None:
            return scores
        return self.criterion(scores, labels)  # expect: GL503
