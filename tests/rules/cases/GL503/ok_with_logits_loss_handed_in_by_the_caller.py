"""The same training function handed `nn.BCEWithLogitsLoss()` and the logits: the loss applies
the sigmoid itself, stably; the probabilities are only for the accuracy."""
import torch
import torch.nn as nn


def train(base_model, classifier, iterator, optimizer, sar_criterion, device):
    for data_input, target in iterator:
        optimizer.zero_grad()
        output, pooled = base_model(**data_input)
        logits = classifier(output, pooled).to(device)
        loss = sar_criterion(logits.squeeze(), target)
        loss.backward()
        optimizer.step()
        accuracy = ((torch.sigmoid(logits.squeeze()) > 0.5).float() == target).float().mean()
        print(loss.item(), accuracy.item())


def train_full(config, base_model, classifier, train_loader, device):
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=config.lr)
    criterion = nn.BCEWithLogitsLoss().to(device)
    for epoch in range(config.epochs):
        train(base_model, classifier, train_loader, optimizer, criterion, device)
