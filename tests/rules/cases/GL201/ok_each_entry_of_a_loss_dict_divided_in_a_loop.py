"""A paraphrase fine-tune keeps its losses in a dict and divides every entry by the window in a
loop over the dict's items before it backpropagates `loss["lm"]`."""
import torch


def train(args, model, optimizer, scheduler, loader):
    model.zero_grad()
    for step, batch in enumerate(loader):
        loss = model(batch)  # {"lm": ..., "aux": ...}
        if args.gradient_accumulation_steps > 1:
            for k, v in loss.items():
                loss[k] = v / args.gradient_accumulation_steps
        loss["lm"].backward()
        if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            model.zero_grad()
