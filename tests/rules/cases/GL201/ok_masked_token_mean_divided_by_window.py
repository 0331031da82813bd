"""The same loop with the masked token mean divided by the window as well: silent."""
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, accumulation_steps=8):
    model.train()
    for step, batch in enumerate(loader):
        logits = model(batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        mask = batch["loss_mask"].float()
        token_loss = F.cross_entropy(logits.view(-1, logits.size(-1)), batch["labels"].view(-1), reduction="none")
        loss = (token_loss * mask.view(-1)).sum() / mask.sum().clamp(min=1) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
