"""Temporal link prediction: the positive and negative edge scores each go through a sigmoid,
are joined with `torch.cat`, and BCELoss takes the joined probabilities."""
import torch
import torch.nn as nn


def train_link_prediction(model, loader, optimizer, num_epochs):
    loss_func = nn.BCELoss()
    for epoch in range(num_epochs):
        model.train()
        for batch_src, batch_dst, batch_neg_dst, batch_times in loader:
            src_emb, dst_emb = model[0](batch_src, batch_dst, batch_times)
            _, neg_emb = model[0](batch_src, batch_neg_dst, batch_times)
            positive_probabilities = model[1](src_emb, dst_emb).squeeze(dim=-1).sigmoid()
            negative_probabilities = model[1](src_emb, neg_emb).squeeze(dim=-1).sigmoid()
            predicts = torch.cat([positive_probabilities, negative_probabilities], dim=0)
            labels = torch.cat([torch.ones_like(positive_probabilities), torch.zeros_like(negative_probabilities)], dim=0)
            loss = loss_func(input=predicts, target=labels)  # expect: GL503
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
