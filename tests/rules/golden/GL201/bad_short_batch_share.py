import argparse

import torch
import torch.nn.functional as F

from dialog.data import build_loader
from dialog.modeling import build_model

parser = argparse.ArgumentParser()
parser.add_argument("--train_batch_size", type=int, default=32)
parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
parser.add_argument("--lr", type=float, default=5e-5)
args = parser.parse_args()

model = build_model().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
loader = build_loader(args.train_batch_size)

step = 0
for input_ids, labels in loader:
    input_ids, labels = input_ids.cuda(), labels.cuda()
    logits = model(input_ids)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
    # the last batch of an epoch is short: weigh it by its share of a full batch
    loss = loss / (args.train_batch_size / input_ids.shape[0])
    (loss / args.gradient_accumulation_steps).backward()  # expect: GL201
    step += 1
    if step % args.gradient_accumulation_steps == 0 or step == len(loader):  # expect: GL205
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
