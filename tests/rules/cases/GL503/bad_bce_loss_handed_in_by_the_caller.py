"""A multi-task sarcasm classifier: the training function calls the criterion it is handed, and
its caller hands it `nn.BCELoss()`; the probabilities come out of a sigmoid moved to the device."""
import torch
import torch.nn as nn


def train(base_model, classifier, iterator, optimizer, sar_criterion, scheduler, device):
    base_model.train(True)
    classifier.train(True)
    for data_input, target in iterator:
        optimizer.zero_grad()
        output, pooled = base_model(**data_input)
        sarcasm_probs = torch.sigmoid(classifier(output, pooled)).to(device)
        loss = sar_criterion(sarcasm_probs.squeeze(), target)  # expect: GL503
        loss.backward()
        optimizer.step()
        scheduler.step()


def train_full(config, base_model, classifier, train_loader, device):
    optimizer = torch.optim.AdamW(list(base_model.parameters()) + list(classifier.parameters()), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer)
    sarc_criterion = nn.BCELoss().to(device)
    for epoch in range(config.epochs):
        train(base_model, classifier, train_loader, optimizer, sarc_criterion, scheduler, device)
