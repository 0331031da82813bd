"""The same epoch, summing the entries detached: no graph outlives its iteration."""
import torch


def train_loop(fabric, net, trainloader, optimizer, epochs):
    net.train()
    for _ in range(epochs):
        results_epoch = {key: torch.tensor(0.0, device=net.device) for key in ("loss", "accuracy")}
        for batch_idx, batch in enumerate(trainloader):
            results = net.training_step(batch, batch_idx)
            loss = results["loss"]
            optimizer.zero_grad()
            fabric.backward(loss)
            optimizer.step()
            for key in results_epoch.keys():
                results_epoch[key] += results[key].detach()
        for key in results_epoch.keys():
            results_epoch[key] = (results_epoch[key] / len(trainloader)).item()
    return results_epoch
