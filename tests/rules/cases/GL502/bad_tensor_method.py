import torch.nn.functional as F

for batch in loader:
    logits = model(batch["pixel_values"])
    loss = F.cross_entropy(logits.softmax(dim=-1), batch["labels"])  # expect: GL502
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
