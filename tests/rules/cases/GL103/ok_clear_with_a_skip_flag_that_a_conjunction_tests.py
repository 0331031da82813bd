"""A non-finite gradient norm clears the gradients and raises a skip flag; the step's test is a
conjunction that needs the flag down (`not skip_backward and not skip_optim_step`), so no step
ever follows that clear."""
import torch


def train(model, loader, optim, scaler, args):
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            skip_optim_step = False
            skip_backward = batch is None
            if not skip_backward:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = model(batch)
                scaler.scale(loss).backward()
            scaler.unscale_(optim)
            grad_norm = None
            if args.clip_grad_norm > 0:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
            if grad_norm is not None and not bool(torch.isfinite(grad_norm).all()):
                print(f"non-finite grad norm at epoch {epoch} step {step}: skipped")
                optim.zero_grad(set_to_none=True)
                skip_optim_step = True
            if not skip_backward and not skip_optim_step:
                scaler.step(optim)
                scaler.update()
                optim.zero_grad(set_to_none=True)
