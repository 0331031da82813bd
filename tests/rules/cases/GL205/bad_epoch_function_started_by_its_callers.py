import argparse

import torch
from torch.utils.data import DataLoader


def sft_train_epoch(epoch, loader, iters, start_step=0):
    """Each call gets a fresh loader; the index starts at the resume offset only on a resumed epoch."""
    for step, (input_ids, labels) in enumerate(loader, start=start_step + 1):
        with autocast_ctx:
            logits = model(input_ids)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten())
            loss = loss / args.accumulation_steps
        scaler.scale(loss).backward()
        if (step + 1) % args.accumulation_steps == 0:  # expect: GL205
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        if step % args.log_interval == 0 or step == iters:
            print(f"epoch {epoch} step {step}/{iters} loss {loss.item() * args.accumulation_steps:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--accumulation_steps", type=int, default=8)
    parser.add_argument("--grad_clip", type=float, default=1.0)
    parser.add_argument("--log_interval", type=int, default=100)
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Embedding(6400, 512), torch.nn.Linear(512, 6400))
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    scaler = torch.amp.GradScaler("cuda")
    autocast_ctx = torch.autocast("cuda", dtype=torch.bfloat16)
    dataset, start_epoch, start_step = torch.load("sft.pt"), 0, 0
    for epoch in range(start_epoch, args.epochs):
        if epoch == start_epoch and start_step > 0:
            sampler = list(range(start_step, len(dataset)))
            loader = DataLoader(dataset, batch_size=16, sampler=sampler)
            sft_train_epoch(epoch, loader, len(loader) + start_step + 1, start_step)
        else:
            loader = DataLoader(dataset, batch_size=16, shuffle=True)
            sft_train_epoch(epoch, loader, len(loader), 0)
