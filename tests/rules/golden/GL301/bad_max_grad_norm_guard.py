import argparse

import torch
from torch.amp import GradScaler
from transformers import AutoModelForQuestionAnswering

from squad_data import squad_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args()

    model = AutoModelForQuestionAnswering.from_pretrained("roberta-base").cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = GradScaler("cuda", enabled=args.fp16)
    loader = squad_loader("train", batch_size=24)

    for epoch in range(args.epochs):
        for batch in loader:
            batch = {k: v.cuda() for k, v in batch.items()}
            with torch.autocast("cuda", dtype=torch.float16, enabled=args.fp16):
                loss = model(**batch).loss
            scaler.scale(loss).backward()
            if args.max_grad_norm > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)  # expect: GL301
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
