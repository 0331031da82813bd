"""Full-batch L-BFGS on a molecular potential: the closure backpropagates every batch of the
loader (each weighted by its share of the samples) before the optimizer's one step."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def lbfgs_epoch(model, loss_fn, data_loader, optimizer, device):
    samples = sum(batch.num_graphs for batch in data_loader)

    def closure():
        optimizer.zero_grad(set_to_none=True)
        total = torch.zeros((), device=device)
        for batch in data_loader:
            batch = batch.to(device)
            energy = model(batch.to_dict())
            batch_loss = loss_fn(energy, batch) * (batch.num_graphs / samples)
            batch_loss.backward()  # expect: GL401
            total += batch_loss.detach()
        return total

    return optimizer.step(closure)


def run(net, loss_fn, data_loader, local_rank, epochs):
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)
    model = DistributedDataParallel(net.to(device), device_ids=[local_rank])
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, history_size=200, line_search_fn="strong_wolfe")
    for epoch in range(epochs):
        loss = lbfgs_epoch(model, loss_fn, data_loader, optimizer, device)
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {loss.item():.5f}")
