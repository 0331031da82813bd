import torch.nn.functional as F

for batch in loader:
    logits = model(batch["pixel_values"])
    loss = F.cross_entropy(logits, batch["labels"])  # expect: GL502
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
