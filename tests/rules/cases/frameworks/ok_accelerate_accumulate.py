import torch
from accelerate import Accelerator
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

from glue_data import make_train_dataloader

accelerator = Accelerator(gradient_accumulation_steps=8, mixed_precision="fp16")
model = AutoModelForSequenceClassification.from_pretrained("roberta-large", num_labels=3)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, weight_decay=0.1)
train_dataloader = make_train_dataloader("mnli", batch_size=8)
lr_scheduler = get_linear_schedule_with_warmup(optimizer, 600, 10 * len(train_dataloader))
model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
    model, optimizer, train_dataloader, lr_scheduler
)

for epoch in range(10):
    model.train()
    for step, batch in enumerate(train_dataloader):
        # Accelerate scales the loss, skips the optimizer outside sync steps and handles no_sync
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        if step % 100 == 0:
            accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
