import torch
from transformers import AutoModelForSeq2SeqLM, get_linear_schedule_with_warmup

from summarization_data import cnn_dm_loader


def train(args):
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-base").to(args.device)
    loader = cnn_dm_loader("train", batch_size=args.per_device_train_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    total_steps = len(loader) // args.gradient_accumulation_steps * args.num_train_epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, total_steps)

    completed_steps = 0
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(loader):
            batch = {k: v.to(args.device) for k, v in batch.items()}
            outputs = model(**batch)
            loss = outputs.loss
            loss = loss / args.gradient_accumulation_steps
            loss.backward()
            if step % args.gradient_accumulation_steps == 0 or step == len(loader) - 1:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()  # expect: GL202
                completed_steps += 1
    return completed_steps
