"""A fine-tuning script whose options live in a dataclass (the window defaults to 1) and are
overwritten from the command line by a helper that sets them by name: the window is whatever
the run asks for, and the fp32 path clips every micro-batch."""
from dataclasses import dataclass

import fire
import torch


@dataclass
class train_config:
    lr: float = 1e-4
    num_epochs: int = 3
    gradient_accumulation_steps: int = 1
    use_fp16: bool = False


def update_config(configs, **kwargs):
    for config in configs if isinstance(configs, (tuple, list)) else (configs,):
        for key, value in kwargs.items():
            if hasattr(config, key):
                setattr(config, key, value)


def train(model, train_dataloader, optimizer, lr_scheduler, gradient_accumulation_steps, config):
    scaler = torch.amp.GradScaler("cuda") if config.use_fp16 else None
    for epoch in range(config.num_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss / gradient_accumulation_steps
            if config.use_fp16:
                scaler.scale(loss).backward()
                if (step + 1) % gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.8)  # expect: GL203
                if (step + 1) % gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                    optimizer.step()
                    optimizer.zero_grad()
        lr_scheduler.step()


def main(**kwargs):
    update_config((train_config,), **kwargs)
    model, train_dataloader = torch.load("model.pt"), torch.load("data.pt")
    optimizer = torch.optim.AdamW(model.parameters(), lr=train_config.lr)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.85)
    train(model, train_dataloader, optimizer, lr_scheduler, train_config.gradient_accumulation_steps, train_config)


if __name__ == "__main__":
    fire.Fire(main)
