import torch
import torch.nn.functional as F

from fairseq_like import TransformerNMT
from data import token_bucket_loader


def multiply_grads(params, c):
    for p in params:
        if p.grad is not None:
            p.grad.data.mul_(c)


model = TransformerNMT(vocab=40000, layers=6).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.98))
update_freq = 8

sample_size = 0
for i, batch in enumerate(token_bucket_loader("wmt16_en_de", max_tokens=4096)):
    logits = model(batch["src_tokens"].cuda(), batch["prev_output_tokens"].cuda())
    loss = F.cross_entropy(logits.flatten(0, 1), batch["target"].cuda().flatten(), ignore_index=1, reduction="sum")
    loss.backward()
    sample_size += batch["ntokens"]
    if (i + 1) % update_freq == 0:
        # gradients of the summed loss, normalised once per update by the tokens seen
        multiply_grads(model.parameters(), 1.0 / sample_size)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 25.0)
        optimizer.step()
        optimizer.zero_grad()
        sample_size = 0
