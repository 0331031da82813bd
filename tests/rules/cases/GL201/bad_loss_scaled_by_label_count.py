import torch
from apex import amp
from torch.nn.utils import clip_grad_norm_


def train(model, optimizer, train_dataloader, opts):
    """Binary cross-entropy averaged over every label, then scaled back up by the label count
    (instance-level BCE): the multiplication by a tensor size does not divide by the window."""
    model.train()
    optimizer.zero_grad()
    for epoch in range(opts.num_epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(batch, compute_loss=True)
            loss = loss.mean() * batch["targets"].size(1)
            delay_unscale = (step + 1) % opts.gradient_accumulation_steps != 0
            with amp.scale_loss(loss, optimizer, delay_unscale=delay_unscale) as scaled_loss:
                scaled_loss.backward()  # expect: GL201
            if (step + 1) % opts.gradient_accumulation_steps == 0:  # expect: GL205
                clip_grad_norm_(amp.master_params(optimizer), opts.grad_norm)
                optimizer.step()
                optimizer.zero_grad()
