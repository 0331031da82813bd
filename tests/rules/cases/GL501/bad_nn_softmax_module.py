import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.fc = nn.Linear(in_dim, n_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return torch.log(self.softmax(self.fc(x)))  # expect: GL501


model = Classifier(784, 10)
criterion = nn.NLLLoss()
