import torch
from accelerate import Accelerator


def finetune(cfg, model, loader):
    accelerator = Accelerator(mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    for epoch in range(cfg.epochs):
        for batch in loader:
            loss = model(input_ids=batch["input_ids"], labels=batch["labels"]).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()  # expect: GL103
