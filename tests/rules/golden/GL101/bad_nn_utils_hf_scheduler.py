import torch
import torch.nn as nn
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

from glue_data import make_train_dataloader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
model.to(device)
train_dataloader = make_train_dataloader("sst2", batch_size=32)

num_epochs = 3
num_training_steps = num_epochs * len(train_dataloader)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=500, num_training_steps=num_training_steps)

model.train()
for epoch in range(num_epochs):
    for step, batch in enumerate(train_dataloader):
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL101
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        if step % 100 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
