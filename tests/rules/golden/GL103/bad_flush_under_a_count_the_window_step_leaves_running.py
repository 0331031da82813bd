"""The same script with a running count the window's step never sets back: once the count passes
the window, every later iteration that ends a window clears and then flushes again on the
gradients it just cleared."""
import time

import torch
import torch.nn.functional as F

GRADIENT_ACCUMULATION_STEPS = 4
SAVE_SECONDS = 1800
student = torch.nn.Linear(16, 16)
teacher = torch.nn.Linear(16, 16)
optimizer = torch.optim.AdamW(student.parameters(), lr=1e-4)
batches = [torch.randn(8, 16) for _ in range(10)]

last_save = time.time()
for epoch in range(3):
    accumulation_step = 0
    optimizer.zero_grad()
    for batch_idx, batch in enumerate(batches):
        with torch.no_grad():
            target = teacher(batch).softmax(-1)
        loss = F.kl_div(student(batch).log_softmax(-1), target, reduction="batchmean")
        (loss / GRADIENT_ACCUMULATION_STEPS).backward()
        accumulation_step += 1
        if accumulation_step % GRADIENT_ACCUMULATION_STEPS == 0:
            optimizer.step()
        due = time.time() - last_save > SAVE_SECONDS
        if due and accumulation_step > 0:
            optimizer.step()
            optimizer.zero_grad()  # expect: GL103
            optimizer.zero_grad()
        if due:
            torch.save(student.state_dict(), f"checkpoints/{epoch}-{batch_idx}.pt")
            last_save = time.time()
