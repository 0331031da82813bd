import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, train_data, optimizer, loss_fn, gpu_id):
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])
        self.train_data, self.optimizer, self.loss_fn, self.gpu_id = train_data, optimizer, loss_fn, gpu_id

    def _run_batch(self, batch):
        self.optimizer.zero_grad()
        output = self.model(batch)
        loss = self.loss_fn(output["x"], output["y"], output["logits"])
        loss.backward()
        self.optimizer.step()
        return loss

    def _run_epoch(self, epoch):
        """The epoch's total is called `loss` too, but nothing backpropagates it here: it keeps
        every batch's graph until the epoch ends."""
        self.train_data.sampler.set_epoch(epoch)
        loss = 0.0
        for batch in self.train_data:
            loss += self._run_batch(batch.to(self.gpu_id))  # expect: GL601
        loss /= len(self.train_data)
        print(f"[GPU{self.gpu_id}] epoch {epoch} | loss {loss}")
        return loss
