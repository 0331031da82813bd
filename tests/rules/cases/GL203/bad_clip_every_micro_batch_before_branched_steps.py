import torch


def train(model, loader, optimizer, swa_optimizer, args):
    """The clip runs on every micro-batch; the step is the averaging optimizer's in the SWA
    phase and the plain one's otherwise. Moving the clip before one of them would leave the
    other phase unclipped, so no fix is offered."""
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y) / args.accum
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)  # expect: GL203
        if (i + 1) % args.accum == 0 or i + 1 == len(loader):
            if args.swa:
                swa_optimizer.step()
                swa_optimizer.zero_grad()
            else:
                optimizer.step()
                optimizer.zero_grad()
