"""An environment trainer with a step method per environment, each stepping on the window's last
micro-batch: the fp16 branches clear after the step, the plain branch of the `pytorch`
environment had its clear commented out, so its steps add every earlier window's gradients."""

import torch


class EnvTrainer:
    def __init__(self, env_type, fp16, gradient_accumulation_steps):
        self.env_type = env_type
        self.fp16 = fp16
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.accumulate_count = 0

    def train(self, model, optimizer, train_dataloader, epochs):
        for epoch in range(epochs):
            for iteration, batch in enumerate(train_dataloader):
                if self.env_type == "pytorchDDP":
                    self.train_step_ddp(batch, model, optimizer)
                elif self.env_type == "pytorch":
                    self.train_step_pytorch(batch, model, optimizer)

    def train_step_pytorch(self, batch, model, optimizer):
        lm_loss = model(**batch)["loss"] / self.gradient_accumulation_steps
        lm_loss.backward()
        if (self.accumulate_count + 1) % self.gradient_accumulation_steps == 0:
            if self.fp16:
                optimizer.step()
                optimizer.zero_grad()
            else:
                optimizer.step()  # expect: GL104
                # optimizer.zero_grad()
            self.accumulate_count = 0
        else:
            self.accumulate_count += 1

    def train_step_ddp(self, batch, model, optimizer):
        lm_loss = model(**batch)["loss"] / self.gradient_accumulation_steps
        lm_loss.backward()
        if (self.accumulate_count + 1) % self.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            self.accumulate_count = 0
        else:
            self.accumulate_count += 1
