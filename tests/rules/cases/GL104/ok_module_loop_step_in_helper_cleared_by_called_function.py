"""The same script where the cleanup function runs after every batch (and clears the
gradients there): silent."""
import torch
from torch.amp import GradScaler

model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
loader = [(torch.randn(4, 32), torch.randint(0, 8, (4,))) for _ in range(100)]
scaler = GradScaler("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)


def train_batch(batch, model, optimizer):
    inputs, labels = batch
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()


def release_memory(model=None, optimizer=None):
    if optimizer is not None:
        optimizer.zero_grad(set_to_none=True)


losses = []
for epoch in range(2):
    for batch in loader:
        losses.append(train_batch(batch, model, optimizer))
        release_memory(model=model, optimizer=optimizer)
