import torch
import torch.nn.functional as F


def train(model, loader, optimizer, microbatch):
    """Each batch is sliced to fit in memory; the first slice clears, the last one steps."""
    for batch, labels in loader:
        for i in range(0, len(batch), microbatch):
            if i == 0:
                optimizer.zero_grad(set_to_none=True)
            sub_batch, sub_labels = batch[i : i + microbatch], labels[i : i + microbatch]
            loss = F.cross_entropy(model(sub_batch), sub_labels) * len(sub_batch) / len(batch)
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
