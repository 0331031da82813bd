import torch


class CaptionTrainer:
    """The step waits on a flag the body sets in an if/elif chain; the loss is divided by the
    window, and the unscale and clip run only when the flag lets the step run."""

    def __init__(self, args, model, optim, train_loader):
        self.args = args
        self.model = model
        self.optim = optim
        self.train_loader = train_loader
        self.scaler = torch.amp.GradScaler("cuda")

    def train(self):
        accum = self.args.gradient_accumulation_steps
        for epoch in range(self.args.epochs):
            for step_i, batch in enumerate(self.train_loader):
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = self.model.train_step(batch)["loss"]
                self.scaler.scale(loss / accum).backward()

                update = True
                if accum > 1:
                    if (step_i + 1) % accum == 0 or step_i == len(self.train_loader) - 1:
                        update = True
                    else:
                        update = False

                if update:
                    if self.args.clip_grad_norm > 0:
                        self.scaler.unscale_(self.optim)
                        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad_norm)
                    self.scaler.step(self.optim)
                    self.scaler.update()
                    self.optim.zero_grad(set_to_none=True)
