import torch

from llama import Transformer, ModelArgs
from data import PackedDataset

grad_accum = 4
max_steps = 5000
device = "cuda"

model = Transformer(ModelArgs(dim=1024, n_layers=16, n_heads=16, vocab_size=32000)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
loader = torch.utils.data.DataLoader(PackedDataset("tokens.bin", seq_len=2048), batch_size=8)
data = iter(loader)

model.train()
for it in range(max_steps * grad_accum):
    x, y = next(data)
    x, y = x.to(device), y.to(device)
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        logits, loss = model(x, y)
    (loss / grad_accum).backward()  # expect: GL201
    if (it + 1) % grad_accum == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"step {(it + 1) // grad_accum}: loss {loss.item():.4f}")
