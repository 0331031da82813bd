"""The same link prediction on logits: the joined scores go to BCEWithLogitsLoss, and the
sigmoid is taken only for the metric."""
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score


def train_link_prediction(model, loader, optimizer, num_epochs):
    loss_func = nn.BCEWithLogitsLoss()
    for epoch in range(num_epochs):
        for batch_src, batch_dst, batch_neg_dst in loader:
            positive_logits = model(batch_src, batch_dst).squeeze(dim=-1)
            negative_logits = model(batch_src, batch_neg_dst).squeeze(dim=-1)
            logits = torch.cat([positive_logits, negative_logits], dim=0)
            labels = torch.cat([torch.ones_like(positive_logits), torch.zeros_like(negative_logits)], dim=0)
            loss = loss_func(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            auc = roc_auc_score(labels.cpu().numpy(), torch.cat([positive_logits.sigmoid(), negative_logits.sigmoid()]).detach().cpu().numpy())
