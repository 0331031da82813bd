"""The criterion returns a dict of losses; the step divides every entry by the window in one
comprehension and backpropagates the total entry."""
import torch


class FineTuner:
    def __init__(self, model, criterion, optimizer, config):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.config = config
        self.scaler = torch.amp.GradScaler("cuda")

    def train_epoch(self, loader):
        self.optimizer.zero_grad()
        for step, (images, texts) in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                outputs = self.model(pixel_values=images, input_ids=texts)
                losses = self.criterion(outputs.image_embeds, outputs.text_embeds)
                losses = {k: v / self.config.gradient_accumulation_steps for k, v in losses.items()}
            self.scaler.scale(losses["total_loss"]).backward()
            if (step + 1) % self.config.gradient_accumulation_steps == 0 or step + 1 == len(loader):
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
