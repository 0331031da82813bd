import torch
from apex import amp


def train(model, optimizer, loader, args):
    """The clip, the step and the clear all inside the block: moving the clip after it would
    put it after the step, so no fix is offered (the step belongs after the block too)."""
    model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    for step, batch in enumerate(loader):
        loss = model(**batch)
        with amp.scale_loss(loss, optimizer) as scaled_loss:
            scaled_loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)  # expect: GL301
            optimizer.step()
            optimizer.zero_grad()
