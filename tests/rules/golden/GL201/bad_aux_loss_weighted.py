import torch
import torch.nn.functional as F

from moe import SwitchTransformer
from data import c4_loader

accumulation_steps = 8
aux_loss_coef = 0.01

model = SwitchTransformer(num_experts=8, d_model=768, n_layers=12, vocab_size=32128).cuda()
optimizer = torch.optim.Adafactor(model.parameters(), lr=1e-3)
loader = c4_loader(batch_size=8, seq_len=512)

model.train()
for step, (input_ids, labels) in enumerate(loader):
    input_ids, labels = input_ids.cuda(), labels.cuda()
    logits, router_aux_loss = model(input_ids)
    lm_loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
    loss = lm_loss + aux_loss_coef * router_aux_loss
    (loss / accumulation_steps).backward()  # expect: GL201
    if (step + 1) % accumulation_steps == 0 or step + 1 == len(loader):  # expect: GL205
        optimizer.step()
        optimizer.zero_grad()
    if step % 500 == 0:
        print(f"{step}: lm {lm_loss.item():.3f} aux {router_aux_loss.item():.4f}")
