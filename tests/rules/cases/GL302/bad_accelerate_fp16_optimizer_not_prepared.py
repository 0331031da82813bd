import torch
import torch.nn.functional as F
from accelerate import Accelerator


def train_torch_amp(model, loader, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def train_accelerate(model, loader, lr=1e-4, steps=100):
    """Only the model is prepared: the fp16 loss is scaled in the accelerator's backward, and
    the plain optimizer steps with the scaled gradients."""
    accelerator = Accelerator(gradient_accumulation_steps=1, mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model = accelerator.prepare_model(model)
    for step, (x, y) in zip(range(steps), loader):
        loss = F.mse_loss(model(x), y)
        accelerator.backward(loss)
        optimizer.step()  # expect: GL302
        optimizer.zero_grad()
