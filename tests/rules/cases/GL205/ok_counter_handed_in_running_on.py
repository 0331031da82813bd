import torch


def run_train(model, train_dataloader, optimizer, cfg, iteration):
    """The caller hands back the count this returns: windows run on across epochs."""
    model.train()
    for batch in train_dataloader:
        iteration += 1
        loss = model(batch)["loss"] / cfg.grad_accumulation
        loss.backward()
        if iteration % cfg.grad_accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()
    return iteration


def main(model, train_dataloader, cfg):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    iteration = 0
    for epoch in range(cfg.epochs):
        iteration = run_train(model, train_dataloader, optimizer, cfg, iteration)
