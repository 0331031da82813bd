from contextlib import nullcontext

import torch


class ASRTrainer:
    def __init__(self, configs, model, optimizer, train_loader, device):
        self.configs = configs
        self.model = torch.nn.parallel.DistributedDataParallel(model.to(device), device_ids=[device.index])
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.device = device
        self.scaler = torch.amp.GradScaler("cuda")

    def train_epoch(self):
        accum_grad = self.configs.accum_grad
        for batch_id, (inputs, labels, input_lens, label_lens) in enumerate(self.train_loader):
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            with torch.autocast("cuda", enabled=self.configs.enable_amp):
                loss_dict = self.model(inputs, input_lens, labels, label_lens)
            if torch.cuda.device_count() > 1 and (batch_id + 1) % accum_grad != 0:
                context = self.model.no_sync
            else:
                context = nullcontext
            with context():  # expect: GL402
                loss = loss_dict["loss"] / accum_grad
                self.scaler.scale(loss).backward()
            if (batch_id + 1) % accum_grad == 0 or batch_id + 1 == len(self.train_loader):
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
