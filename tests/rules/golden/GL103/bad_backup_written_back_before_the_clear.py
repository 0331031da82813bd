"""The gradients kept aside are written back, but the clear comes after the write-back and
before the step: the step still sees zero gradients."""
import torch


def train(model, loader, optimizer, attacker):
    for inputs, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        backup = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
        attacker.perturb()
        torch.nn.functional.cross_entropy(model(inputs), labels).backward()
        attacker.restore()
        for name, param in model.named_parameters():
            if name in backup:
                param.grad = backup[name]
        optimizer.step()
        optimizer.zero_grad()  # expect: GL103
