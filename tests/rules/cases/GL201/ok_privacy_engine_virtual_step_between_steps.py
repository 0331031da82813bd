"""DP-SGD with Opacus 0.x: the non-final micro-batches call `optimizer.virtual_step()`, which
clips and keeps their per-sample gradients; the privacy engine averages the whole logical batch
and adds noise at `step()`. The undivided loss is right: the engine does the normalising."""

import torch
import torch.nn.functional as F
from opacus import PrivacyEngine


def train(model, train_loader, optimizer, epoch, n_acc_steps, device, noise_multiplier, max_grad_norm):
    privacy_engine = PrivacyEngine(
        model, sample_rate=train_loader.batch_size * n_acc_steps / len(train_loader.dataset),
        noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
    )
    privacy_engine.attach(optimizer)
    model.train()
    train_loss, correct = 0.0, 0
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        if (batch_idx + 1) % n_acc_steps == 0 or batch_idx + 1 == len(train_loader):
            optimizer.step()
            optimizer.zero_grad()
        else:
            with torch.no_grad():
                optimizer.virtual_step()
        train_loss += loss.item()
        correct += output.argmax(1).eq(target).sum().item()
    print(f"epoch {epoch}: loss {train_loss / len(train_loader):.4f} acc {correct / len(train_loader.dataset):.3f}")
