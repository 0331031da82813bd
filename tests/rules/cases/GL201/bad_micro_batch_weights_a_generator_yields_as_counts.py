"""The same update with the generator yielding each slice's token count instead of its share:
the slices' losses are weighted up by their sizes, and the window sums them undivided."""
import torch


class PolicyTrainer:
    def __init__(self, model, optimizer, micro_batch_size):
        self.model = model
        self.optimizer = optimizer
        self.micro_batch_size = micro_batch_size

    def _iter_backward_micro_batches(self, batch):
        size = batch["input_ids"].size(0)
        if self.micro_batch_size <= 0 or self.micro_batch_size >= size:
            yield batch, 1.0
            return
        total = float(batch["action_mask"].sum().item())
        for start in range(0, size, self.micro_batch_size):
            piece = {k: v[start:start + self.micro_batch_size] for k, v in batch.items()}
            yield piece, float(piece["action_mask"].sum().item())

    def update(self, minibatches):
        for batch in minibatches:
            self.optimizer.zero_grad(set_to_none=True)
            for piece, micro_weight in self._iter_backward_micro_batches(batch):
                log_probs = self.model(piece["input_ids"]).log_softmax(-1)
                loss = -(log_probs.max(-1).values * piece["advantages"]).mean()
                (loss * micro_weight).backward()  # expect: GL201
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
