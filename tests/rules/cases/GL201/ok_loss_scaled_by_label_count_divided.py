import torch
from apex import amp
from torch.nn.utils import clip_grad_norm_


def train(model, optimizer, train_dataloader, opts):
    """Instance-level BCE scaled by the label count, and divided by the accumulation window."""
    model.train()
    optimizer.zero_grad()
    for epoch in range(opts.num_epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(batch, compute_loss=True)
            loss = loss.mean() * batch["targets"].size(1)
            loss = loss / opts.gradient_accumulation_steps
            delay_unscale = (step + 1) % opts.gradient_accumulation_steps != 0
            with amp.scale_loss(loss, optimizer, delay_unscale=delay_unscale) as scaled_loss:
                scaled_loss.backward()
            if (step + 1) % opts.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader):
                clip_grad_norm_(amp.master_params(optimizer), opts.grad_norm)
                optimizer.step()
                optimizer.zero_grad()
