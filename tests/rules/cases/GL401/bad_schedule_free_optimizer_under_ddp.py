import schedulefree
import torch


def main(config, model, data_loader, rank, using_dist):
    """A schedule-free AdamW is an optimizer like any other (its name speaks of schedules)."""
    optimizer = schedulefree.AdamWScheduleFree(model.parameters(), lr=config.lr, warmup_steps=config.warmup)
    if config.compile:
        model = torch.compile(model)
    if using_dist:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], output_device=rank)
    iter_data_loader = iter(data_loader)
    for epoch in range(config.num_epochs):
        model.train()
        optimizer.train()
        for batch in range(config.num_model_updates * config.num_agg):
            x, y = [a.to(rank) for a in next(iter_data_loader)]
            loss = torch.nn.functional.cross_entropy(model(x), y) / config.num_agg
            loss.backward()  # expect: GL401
            if (batch + 1) % config.num_agg == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_grad_norm)
                optimizer.step()
                optimizer.zero_grad()
