import torch


class CaptionTrainer:
    """The step waits on a flag the body sets in an if/elif chain: off for the first batch, on at
    each window's end or the epoch's last batch. The loss is not divided, and the clip (with its
    unscale) runs after every backward."""

    def __init__(self, args, model, optim, train_loader):
        self.args = args
        self.model = model
        self.optim = optim
        self.train_loader = train_loader
        self.scaler = torch.amp.GradScaler("cuda")

    def train(self):
        for epoch in range(self.args.epochs):
            for step_i, batch in enumerate(self.train_loader):
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = self.model.train_step(batch)["loss"]
                self.scaler.scale(loss).backward()  # expect: GL201
                if self.args.clip_grad_norm > 0:
                    self.scaler.unscale_(self.optim)  # expect: GL304
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad_norm)  # expect: GL203

                update = True
                if self.args.gradient_accumulation_steps > 1:
                    if step_i == 0:
                        update = False
                    elif step_i % self.args.gradient_accumulation_steps == 0 or step_i == len(self.train_loader) - 1:
                        update = True
                    else:
                        update = False

                if update:
                    self.scaler.step(self.optim)
                    self.scaler.update()
                    for param in self.model.parameters():
                        param.grad = None
