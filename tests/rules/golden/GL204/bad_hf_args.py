import torch
from transformers import get_linear_schedule_with_warmup


def train(args, model, train_dataloader, t_total):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, t_total)
    for epoch in range(int(args.num_train_epochs)):
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch)[0] / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader):
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()  # expect: GL106, GL204
                model.zero_grad()
