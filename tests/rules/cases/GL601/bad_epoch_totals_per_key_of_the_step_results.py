"""A federated client's local epoch: the model's training step returns a dict of its loss and
metrics, and the epoch sums every entry per key, the loss with its graph among them."""
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
                value = results[key]
                if not isinstance(value, torch.Tensor):
                    value = torch.tensor(value, device=net.device)
                results_epoch[key] += value  # expect: GL601
        for key in results_epoch.keys():
            results_epoch[key] = (results_epoch[key] / len(trainloader)).item()
    return results_epoch
