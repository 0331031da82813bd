import torch
from accelerate import Accelerator
from transformers import get_scheduler


def main(args, unet, dataset):
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.lr)
    train_dataloader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    # the schedule is counted in micro-batches: stepping it on every one keeps to it
    lr_scheduler = get_scheduler(
        "cosine",
        optimizer=optimizer,
        num_warmup_steps=args.lr_warmup_steps * args.gradient_accumulation_steps,
        num_training_steps=args.max_train_steps * args.gradient_accumulation_steps,
    )
    ema_decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.999)
    unet, optimizer, train_dataloader = accelerator.prepare(unet, optimizer, train_dataloader)
    for batch in train_dataloader:
        with accelerator.accumulate(unet):
            loss = unet(batch).mean()
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            if accelerator.sync_gradients:
                ema_decay.step()


def with_prepared_scheduler(args, model, dataset):
    accelerator = Accelerator(gradient_accumulation_steps=4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=1000)
    loader = torch.utils.data.DataLoader(dataset, batch_size=8)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(batch).mean())
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
