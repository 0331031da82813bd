"""Training scripts as users write them, shared by the CLI tests (one bug each, or none)."""

# GL101: the clip runs after optimizer.step(); the diagnostic is on the clip (line 15, col 9).
CLIP_AFTER_STEP = '''\
"""Regress a noisy linear target with a small MLP."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = [(torch.randn(8, 10), torch.randn(8, 1)) for _ in range(20)]

for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    print(f"epoch {epoch}: {loss.item():.4f}")
'''
CLIP_LINE, CLIP_COL = 15, 9
CLIP_TEXT = "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)"

# GL201: accumulation over `accum` micro-batches, the loss is never divided (line 17, col 5).
ACCUM_NOT_DIVIDED = '''\
import torch
import torch.nn.functional as F
from torch import nn

model = nn.Linear(20, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
accum = 4
batches = [(torch.randn(16, 20), torch.randint(0, 3, (16,))) for _ in range(12)]


def main():
    model.train()
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        if (i + 1) % accum == 0 or i + 1 == len(batches):
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
'''
ACCUM_LINE, ACCUM_COL = 17, 9
ACCUM_TEXT = "loss.backward()"
ACCUM_FIXED_LINE = "        (loss / accum).backward()"

# GL202: zero_grad() on every micro-batch while the step waits for `accum_steps` of them.
ZERO_GRAD_EVERY_MICRO_BATCH = '''\
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
accum_steps = 8
data = [(torch.randn(2, 4), torch.randn(2, 1)) for _ in range(64)]

for step, (x, y) in enumerate(data):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean() / accum_steps
    loss.backward()
    if (step + 1) % accum_steps == 0 or step + 1 == len(data):
        optimizer.step()
'''
ZERO_GRAD_LINE = 10

# A correct loop: clip between backward and step, accumulation with a divided loss.
CLEAN = '''\
import torch
from torch import nn

model = nn.Linear(10, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
accum = 2
loader = [(torch.randn(4, 10), torch.randn(4, 1)) for _ in range(10)]

for i, (x, y) in enumerate(loader):
    loss = nn.functional.mse_loss(model(x), y)
    (loss / accum).backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
'''

# An ordinary module with no training loop at all.
UTILS = '''\
from dataclasses import dataclass


@dataclass
class RunConfig:
    lr: float = 1e-3
    epochs: int = 10


def count(items):
    return sum(1 for _ in items)
'''

# GL201 through a helper called from the loop: reported, but with no automatic fix.
ACCUM_IN_HELPER = '''\
import torch
from torch import nn

model = nn.Linear(8, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
grad_accum_steps = 4
loader = [(torch.randn(4, 8), torch.randint(0, 2, (4,))) for _ in range(16)]


def forward_backward(x, y):
    loss = criterion(model(x), y)
    loss.backward()
    return loss.item()


for i, (x, y) in enumerate(loader):
    forward_backward(x, y)
    if (i + 1) % grad_accum_steps == 0 or i + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()
'''

# GL201 and GL101 in one loop: the loss is not divided, and the clip comes after the step.
TWO_BUGS = '''\
import torch
from torch import nn

model = nn.Linear(16, 4)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
accum = 4
loader = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(32)]

for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.zero_grad()
'''
TWO_BUGS_FIXED = '''\
import torch
from torch import nn

model = nn.Linear(16, 4)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
accum = 4
loader = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(32)]

for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    (loss / accum).backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
'''
