import torch
import torch.nn.functional as F

from llama import Transformer, ModelArgs
from data import padded_batches

IGNORE = -100
grad_accum = 4
model = Transformer(ModelArgs(dim=1024, n_layers=16, n_heads=16, vocab_size=32000)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.0)

model.train()
for step, batch in enumerate(padded_batches("sft.jsonl", batch_size=4)):
    input_ids, labels = batch["input_ids"].cuda(), batch["labels"].cuda()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(input_ids)
    loss_sum = F.cross_entropy(logits.float().view(-1, logits.size(-1)), labels.view(-1),
                               ignore_index=IGNORE, reduction="sum")
    num_tokens = (labels != IGNORE).sum()
    loss = loss_sum / num_tokens
    loss.backward()
    if (step + 1) % grad_accum == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
