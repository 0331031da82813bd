import torch
from torch.nn import DataParallel
from transformers import BertForTokenClassification, get_linear_schedule_with_warmup

from ner_data import conll_dataloader


def train(args):
    model = BertForTokenClassification.from_pretrained("bert-base-cased", num_labels=9)
    if args.n_gpu > 1:
        model = DataParallel(model)
    model.to(args.device)
    loader = conll_dataloader("train", batch_size=args.train_batch_size)
    t_total = len(loader) // args.gradient_accumulation_steps * args.num_train_epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, eps=1e-8)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, t_total)

    global_step = 0
    model.zero_grad()
    for _ in range(args.num_train_epochs):
        for step, batch in enumerate(loader):
            model.train()
            inputs = {k: t.to(args.device) for k, t in batch.items()}
            outputs = model(**inputs)
            loss = outputs[0]
            if args.n_gpu > 1:
                loss = loss.mean()
            (loss / args.gradient_accumulation_steps).backward()  # expect: GL201
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1
    return global_step
