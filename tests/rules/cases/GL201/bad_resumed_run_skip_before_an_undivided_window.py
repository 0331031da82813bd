"""A resumed distillation run skips the batches it already trained on (`if bid < self.params.resume_batches:
continue`) before a step method that accumulates over `gradient_accumulation_steps` without
dividing the loss: the skip is no window, the step method's test is."""
import torch


class Distiller:
    def __init__(self, student, optimizer, params):
        self.student = student
        self.optimizer = optimizer
        self.params = params
        self.n_iter = 0

    def step(self, input_ids, lm_labels):
        logits = self.student(input_ids)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), lm_labels.flatten())
        loss.backward()  # expect: GL201
        self.n_iter += 1
        if self.n_iter % self.params.gradient_accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(self.student.parameters(), self.params.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, dataloader):
        for epoch in range(self.params.n_epoch):
            for bid, (input_ids, lm_labels) in enumerate(dataloader):
                if bid < self.params.resume_batches:
                    continue
                self.step(input_ids, lm_labels)
