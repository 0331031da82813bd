import torch


def check_skipped_step(model0, model1, x, skip_iter, skip_model, iters=3):
    """A test of a mixed-precision wrapper: both models step on every iteration but one, where
    only one of them does; no window accumulates."""
    optimizer0 = torch.optim.SGD(model0.parameters(), lr=0.25, momentum=0.125)
    optimizer1 = torch.optim.SGD(model1.parameters(), lr=0.5, momentum=0.25)
    grads = []
    for i in range(iters):
        optimizer0.zero_grad()
        optimizer1.zero_grad()
        model0(x).backward()
        model1(x).backward()
        grads.append([p.grad.clone() for p in (*model0.parameters(), *model1.parameters())])
        if i == skip_iter:
            if skip_model == 0:
                optimizer1.step()
            else:
                optimizer0.step()
        else:
            optimizer0.step()
            optimizer1.step()
    return grads
