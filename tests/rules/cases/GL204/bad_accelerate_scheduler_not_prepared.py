import accelerate
import torch


def main(args, model, dataset):
    accelerator = accelerate.Accelerator(gradient_accumulation_steps=args.grad_accum_steps, mixed_precision="bf16")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / args.warmup))
    train_dl = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    model, opt, train_dl = accelerator.prepare(model, opt, train_dl)
    for epoch in range(args.epochs):
        for batch in train_dl:
            with accelerator.accumulate(model):
                loss = model(batch).mean()
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()  # expect: GL204
                opt.zero_grad()
