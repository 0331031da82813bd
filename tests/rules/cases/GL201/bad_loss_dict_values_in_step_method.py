import torch

class AccumTrainer:
    def __init__(self, model, optimizer, accum_iter):
        self.model = model
        self.optimizer = optimizer
        self.accum_iter = accum_iter
        self.iter = 0

    def run_step(self, data):
        loss_dict = self.model(data)
        losses = sum(loss_dict.values())
        losses.backward()  # expect: GL201
        self.iter += 1
        if self.iter % self.accum_iter == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, loader, max_iter):
        for data, _ in zip(loader, range(max_iter)):
            self.run_step(data)
