import torch


class Trainer:
    """A window of micro-batches; one that runs out of memory clears what was accumulated so far
    and the window goes on with the rest (a recovery path, not the normal order)."""

    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train_step(self, samples):
        ooms = 0
        for sample in samples:
            try:
                loss = self.model(**sample).loss / len(samples)
                loss.backward()
            except RuntimeError as error:
                if "out of memory" in str(error):
                    ooms += 1
                    self.optimizer.zero_grad()
                else:
                    raise error
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return ooms
