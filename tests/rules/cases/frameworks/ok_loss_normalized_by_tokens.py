import torch
import torch.nn.functional as F

from model import TransformerLM
from data import variable_length_batches

grad_accum = 8
model = TransformerLM(vocab_size=32000, d_model=1024).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)

window = []
for step, batch in enumerate(variable_length_batches("c4", max_tokens=8192)):
    window.append(batch)
    if len(window) < grad_accum:
        continue
    # normalise by the number of target tokens in the whole window, not by the micro-batch count
    num_tokens = sum(int(b["loss_mask"].sum()) for b in window)
    for b in window:
        logits = model(b["input_ids"].cuda())
        loss_sum = (F.cross_entropy(logits.flatten(0, 1), b["labels"].cuda().flatten(), reduction="none")
                    * b["loss_mask"].cuda().flatten()).sum()
        loss = loss_sum / num_tokens
        loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    window.clear()
