import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_ as clip

from model import BertForPretraining
from data import mlm_loader


def train(steps=100_000, max_norm=1.0, device="cuda"):
    model = BertForPretraining(vocab_size=30522, hidden=768, layers=12).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.999), weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0, total_iters=steps)
    scaler = torch.amp.GradScaler("cuda")
    loader = mlm_loader(batch_size=32, max_len=128)

    for step, batch in enumerate(loader):
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast("cuda", dtype=torch.float16):
            mlm_logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(mlm_logits.view(-1, mlm_logits.size(-1)), batch["labels"].view(-1),
                                   ignore_index=-100)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip(model.parameters(), max_norm)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        if step + 1 >= steps:
            break
