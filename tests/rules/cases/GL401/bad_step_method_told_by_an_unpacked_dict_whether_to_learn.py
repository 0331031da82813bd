import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Distiller:
    """The step method learns only when the batch dict it is unpacked from says `grad_on`: the
    training loop accumulates without no_sync; the validation loop turns learning off."""

    def __init__(self, student, teacher, params, train_loader, valid_loader):
        self.student = DDP(student, device_ids=[params.local_rank])
        self.teacher = teacher
        self.params = params
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.optimizer = torch.optim.AdamW(self.student.parameters(), lr=params.lr)
        self.n_iter = 0

    def train(self):
        for epoch in range(self.params.n_epoch):
            for batch in self.train_loader:
                batch_cuda = {key: value.cuda() for key, value in batch.items()}
                batch_cuda["grad_on"] = True
                self.step(**batch_cuda)  # expect: GL401

    def validate(self):
        for batch in self.valid_loader:
            batch_cuda = {key: value.cuda() for key, value in batch.items()}
            batch_cuda["grad_on"] = False
            self.step(**batch_cuda)

    def step(self, input_ids=None, attention_mask=None, grad_on=True, **kwargs):
        with torch.set_grad_enabled(grad_on):
            logits = self.student(input_ids=input_ids, attention_mask=attention_mask).logits
            with torch.no_grad():
                target = self.teacher(input_ids=input_ids, attention_mask=attention_mask).logits
            loss = torch.nn.functional.kl_div(logits.log_softmax(-1), target.softmax(-1), reduction="batchmean")
        if grad_on:
            self.optimize(loss)

    def optimize(self, loss):
        loss = loss / self.params.gradient_accumulation_steps
        loss.backward()
        self.n_iter += 1
        if self.n_iter % self.params.gradient_accumulation_steps == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()
