import torch.nn as nn


class LitClassifier:
    def __init__(self, backbone, n_classes):
        self.backbone = backbone
        self.head = nn.Linear(backbone.out_dim, n_classes)
        self.softmax = nn.Softmax(dim=-1)
        self.criterion = nn.CrossEntropyLoss()

    def training_loss(self, x, y):
        scores = self.softmax(self.head(self.backbone(x)))
        return self.criterion(scores, y)  # expect: GL502
