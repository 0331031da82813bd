import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class TrainConfig:
    """The run's settings: one micro-batch per update."""

    lr = 5e-5
    num_train_epochs = 3
    gradient_accumulation_steps = 1

    def save_config(self, path):
        with open(path, "w") as f:
            f.write(repr(vars(self)))


def main(model, train_dataloader, local_rank):
    args = TrainConfig()
    model = DDP(model.cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                optimizer.step()
                optimizer.zero_grad()
