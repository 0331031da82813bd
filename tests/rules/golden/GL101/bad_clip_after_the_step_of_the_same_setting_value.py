"""The same helper, but the clip is tested on the value the step ran under: in that
environment the clip comes after the step."""
import torch


class Trainer:
    def __init__(self, model, optimizer, env_type, clip_grad=1.0):
        self.model, self.optimizer = model, optimizer
        self.env_type, self.clip_grad = env_type, clip_grad

    def backward_step(self, loss):
        loss.backward()
        if self.env_type == "pytorchDDP":
            if self.env_type == "pytorchDDP":
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)  # expect: GL101
            self.optimizer.step()

    def train(self, loader):
        for batch in loader:
            self.optimizer.zero_grad()
            loss = self.model(**batch).loss
            self.backward_step(loss)
            if self.env_type == "pytorch":
                self.optimizer.step()
