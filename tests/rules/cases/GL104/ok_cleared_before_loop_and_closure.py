import torch


def fit_full_batch(model, optimizer, loader, loss_fn):
    """Full-batch gradient descent: cleared once, the whole epoch accumulated (each loss divided
    by the number of batches), and one step on the last batch."""
    optimizer.zero_grad()
    for index, (x, y) in enumerate(loader):
        (loss_fn(model(x), y) / len(loader)).backward()
        if index == len(loader) - 1:
            optimizer.step()


def fit_lbfgs(model, loader, loss_fn, lr=0.5):
    """L-BFGS re-evaluates the loss through a closure that clears the gradients itself; the
    closure is written before the loop that steps with it."""
    optimizer = torch.optim.LBFGS(model.parameters(), lr=lr)
    batch = {}

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(batch["x"]), batch["y"])
        loss.backward()
        return loss

    for x, y in loader:
        batch["x"], batch["y"] = x, y
        optimizer.step(closure)


def fit_graph_splits(model, optimizer, batches, loss_fn, num_split=1):
    """Cleared at the top of each batch, then one step per subgraph split (one split unless
    asked for more): the clearing runs on every iteration of the loop around."""
    for x, y in batches:
        model.zero_grad()
        for nodes in torch.arange(x.shape[2]).chunk(num_split):
            loss = loss_fn(model(x[:, :, nodes], nodes), y[:, nodes])
            loss.backward()
            optimizer.step()
