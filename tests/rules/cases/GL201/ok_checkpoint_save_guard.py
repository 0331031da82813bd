import os

import torch
import torch.nn.functional as F

from llama import Transformer, ModelArgs
from data import PackedDataset

save_every = 1000
out_dir = "checkpoints"
device = "cuda"
model = Transformer(ModelArgs(dim=1024, n_layers=16, n_heads=16, vocab_size=32000)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
loader = torch.utils.data.DataLoader(PackedDataset("tokens.bin", seq_len=2048), batch_size=8)

for step, (x, y) in enumerate(loader):
    x, y = x.to(device), y.to(device)
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if (step + 1) % save_every == 0:
        os.makedirs(out_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
                   os.path.join(out_dir, f"step_{step + 1}.pt"))
