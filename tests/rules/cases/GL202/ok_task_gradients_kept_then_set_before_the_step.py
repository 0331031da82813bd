"""A multi-task trainer backpropagates each task's sub-batch, copies the backbone's gradients out
(`get_grads()` clones them) and clears before the next task; after the last task it sets the
averaged (or PCGrad-projected) gradients back with `set_grads(...)` and steps. The step reads
those, so neither the clears nor the undivided task losses spoil it."""
import torch


class Backbone(torch.nn.Module):
    def get_grads(self):
        return {k: p.grad.clone() for k, p in self.named_parameters() if p.grad is not None}

    def set_grads(self, grads):
        for k, p in self.named_parameters():
            if k in grads:
                p.grad = grads[k]


class Trainer:
    def __init__(self, heads, lm_optimizer, aggregator):
        self.backbone = Backbone()
        self.heads = heads
        self.lm_optimizer = lm_optimizer
        self.aggregator = aggregator

    def _step(self, sub_batch):
        inputs, labels, task = sub_batch
        loss = torch.nn.functional.cross_entropy(self.heads[task](self.backbone(inputs)), labels)
        self.lm_optimizer.zero_grad()
        loss.backward()
        return loss, self.backbone.get_grads()

    def handle_batch(self, batch):
        self.aggregator.reset()
        for sub_batch in batch:
            loss, grads = self._step(sub_batch)
            self.aggregator.add(grads)
        self.backbone.set_grads(self.aggregator.mean())
        self.lm_optimizer.step()
