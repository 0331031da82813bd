import torch.nn as nn

loss_fn = nn.BCEWithLogitsLoss()


def train_step(model, batch, optimizer):
    logits = model(batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    loss = loss_fn(logits.sigmoid(), batch["labels"].float())  # expect: GL503
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
