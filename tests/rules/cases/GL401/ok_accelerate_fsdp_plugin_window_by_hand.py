import torch
from accelerate import Accelerator, FullyShardedDataParallelPlugin


def main(args, model, train_dataloader):
    """Sharded by FSDP through the plugin: the prepared model is no DistributedDataParallel."""
    fsdp_plugin = FullyShardedDataParallelPlugin(use_orig_params=True)
    accelerator = Accelerator(fsdp_plugin=fsdp_plugin)
    model = accelerator.prepare(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    optimizer, train_dataloader = accelerator.prepare(optimizer, train_dataloader)
    for epoch in range(args.num_epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss / args.gradient_accumulation_steps
            accelerator.backward(loss)
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader):
                optimizer.step()
                optimizer.zero_grad()
