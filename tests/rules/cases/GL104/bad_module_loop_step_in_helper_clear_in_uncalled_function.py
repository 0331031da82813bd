"""A fine-tuning script: the batch loop calls a helper that backpropagates the scaled loss and
steps through the scaler; the only `zero_grad` sits in a memory-cleanup function whose call was
commented out, so the gradients of every batch so far are applied at each step."""
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
    scaler.step(optimizer)  # expect: GL104
    scaler.update()
    return loss.item()


def release_memory(model=None, optimizer=None):
    if optimizer is not None:
        optimizer.zero_grad(set_to_none=True)
    torch.cuda.empty_cache()


losses = []
for epoch in range(2):
    for batch in loader:
        try:
            losses.append(train_batch(batch, model, optimizer))
        except RuntimeError as error:
            if "out of memory" not in str(error):
                raise
            # release_memory(model=model, optimizer=optimizer)
