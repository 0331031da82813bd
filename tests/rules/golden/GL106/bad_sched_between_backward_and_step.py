import torch
from transformers import get_cosine_schedule_with_warmup

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
lr_scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=500, num_training_steps=10000)
for batch in train_dataloader:
    outputs = model(**batch)
    outputs.loss.backward()
    optimizer.step()
    lr_scheduler.step()  # expect: GL106
    optimizer.zero_grad()
