import torch
import torch.nn.functional as F
from colossalai.booster import Booster
from colossalai.booster.plugin import LowLevelZeroPlugin
from tqdm import tqdm

from reward.data import preference_loader
from reward.model import RewardModel


class PairwiseLoss(torch.nn.Module):
    def forward(self, chosen, rejected):
        return -F.logsigmoid(chosen - rejected)


class RewardTrainer:
    def __init__(self, booster: Booster, model, optimizer, scheduler, loader, accumulation_steps=8):
        self.booster = booster
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader
        self.accumulation_steps = accumulation_steps
        self.loss_fn = PairwiseLoss()

    def train_epoch(self, epoch):
        self.model.train()
        for step, batch in enumerate(tqdm(self.loader, desc=f"epoch {epoch}")):
            scores = self.model(torch.cat([batch["chosen"], batch["rejected"]]))
            chosen, rejected = scores.chunk(2)
            loss = self.loss_fn(chosen, rejected).mean()
            self.booster.backward(loss=loss, optimizer=self.optimizer)  # expect: GL201
            if (step + 1) % self.accumulation_steps == 0:  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.scheduler.step()


def main():
    booster = Booster(plugin=LowLevelZeroPlugin(stage=2, precision="bf16"))
    model = RewardModel.from_pretrained("opt-350m")
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-6)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=1000)
    model, optimizer, _, loader, scheduler = booster.boost(model, optimizer, dataloader=preference_loader(), lr_scheduler=scheduler)
    trainer = RewardTrainer(booster, model, optimizer, scheduler, loader)
    for epoch in range(3):
        trainer.train_epoch(epoch)
