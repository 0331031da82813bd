"""The loss is scaled for the backward but the optimizer is stepped directly (GL302): the clip
in between acts on gradients still multiplied by the loss scale."""
import torch
import torch.nn.functional as F
from torch.amp import GradScaler  # expect: GL306


def train(model, batches, optimizer, epochs, vocab_size, device="cuda"):
    scaler = GradScaler("cuda")  # expect: GL306
    for epoch in range(epochs):
        for idx, tokens in enumerate(batches):
            tokens = tokens.to(device)
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(tokens[:, :-1])
                loss = F.cross_entropy(logits.reshape(-1, vocab_size), tokens[:, 1:].reshape(-1))
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL301
            scaler.step(optimizer)  # expect: GL302
            scaler.update()
