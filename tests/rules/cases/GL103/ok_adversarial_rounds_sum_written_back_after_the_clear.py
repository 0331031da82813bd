"""FreeLB-style adversarial training: each round's gradients are added to a sum kept aside and
cleared before the next round; after the rounds the sum is written back onto the parameters,
so the step reads it, not the cleared gradients."""
from collections import defaultdict

import torch


def adversarial_rounds(model, attacker, compute_loss, rounds=3):
    kept = defaultdict(lambda: 0)
    for r in range(1, rounds + 1):
        loss = compute_loss()
        loss.backward()
        for name, param in model.named_parameters():
            if param.grad is not None:
                kept[name] += param.grad / rounds
        attacker.perturb()
        model.zero_grad()
    attacker.restore()
    for name, param in model.named_parameters():
        if param.requires_grad:
            param.grad = kept[name]


def train(model, loader, optimizer, attacker):
    for inputs, labels in loader:
        adversarial_rounds(model, attacker, lambda: torch.nn.functional.cross_entropy(model(inputs), labels))
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
