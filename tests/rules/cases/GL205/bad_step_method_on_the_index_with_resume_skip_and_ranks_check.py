"""FARM style: the epoch's loop fast-forwards the first micro-batches of a resumed run
(`if resume_from_step and step <= resume_from_step: continue`), stops when another rank runs out
of data (`if not self._all_ranks_have_data(step=step): break`), and hands the index to a method
that steps on `step % grad_acc_steps == 0`. Neither skip touches the epoch's tail: the
micro-batches after its last step leak into the next epoch."""

import torch
import torch.distributed as dist
from tqdm import tqdm


class Trainer:
    def __init__(self, model, optimizer, data_silo, epochs, device, local_rank=-1, grad_acc_steps=1, from_step=0):
        self.model = model
        self.optimizer = optimizer
        self.data_silo = data_silo
        self.epochs = epochs
        self.device = device
        self.local_rank = local_rank
        self.grad_acc_steps = grad_acc_steps
        self.from_step = from_step

    def train(self):
        resume_from_step = self.from_step
        for epoch in range(self.epochs):
            train_data_loader = self.data_silo.get_data_loader("train")
            progress_bar = tqdm(train_data_loader, disable=self.local_rank not in [0, -1])
            for step, batch in enumerate(progress_bar):
                if resume_from_step and step <= resume_from_step:
                    if resume_from_step == step:
                        resume_from_step = None
                    else:
                        continue
                if self.local_rank != -1:
                    if not self._all_ranks_have_data(has_data=1, step=step):
                        break
                batch = {key: batch[key].to(self.device) for key in batch}
                logits = self.model.forward(**batch)
                per_sample_loss = self.model.logits_to_loss(logits=logits, **batch)
                self.backward_propagate(per_sample_loss, step)

    def backward_propagate(self, loss, step):
        loss = loss.mean()
        if self.grad_acc_steps > 1:
            loss = loss / self.grad_acc_steps
        loss.backward()
        if step % self.grad_acc_steps == 0:  # expect: GL205
            self.optimizer.step()
            self.optimizer.zero_grad()

    def _all_ranks_have_data(self, has_data, step):
        flag = torch.tensor(has_data, device=self.device)
        dist.all_reduce(flag, op=dist.ReduceOp.MIN)
        return bool(flag.item())
