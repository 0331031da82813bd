import torch


def train(model, optimizer, loader):
    """An out-of-memory batch is skipped, but on the normal path the gradients are cleared
    between backward and the step."""
    for inputs, targets in loader:
        try:
            loss = torch.nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
        except RuntimeError as error:
            if "out of memory" not in str(error):
                raise
            torch.cuda.empty_cache()
            continue
        optimizer.step()
        optimizer.zero_grad()  # expect: GL103
