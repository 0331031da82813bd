import torch


class Trainer:
    def __init__(self, model, optimizer, fp16=True):
        self.model = model
        self.optimizer = optimizer
        self.scaler = torch.cuda.amp.GradScaler(  # expect: GL306
            enabled=fp16,
            growth_interval=1000,
        )

    def step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model(batch)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
