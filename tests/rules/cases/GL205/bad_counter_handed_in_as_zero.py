import torch
from tqdm import tqdm


def run_train(model, train_dataloader, optimizer, cfg, iteration):
    model.train()
    progress_bar = tqdm(range(len(train_dataloader)))
    batches = iter(train_dataloader)
    for _ in progress_bar:
        batch = {k: v.to(cfg.device) for k, v in next(batches).items()}
        iteration += 1
        loss = model(batch)["loss"] / cfg.grad_accumulation
        loss.backward()
        if iteration % cfg.grad_accumulation == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()


def main(model, train_dataloader, cfg):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    i = 0
    for epoch in range(cfg.epochs):
        run_train(model, train_dataloader, optimizer, cfg, iteration=i)
