import torch


class WeightPerturbation:
    """Adversarial weight perturbation: nudges the embedding weights along their gradient,
    backpropagates the loss at the perturbed point, then restores the weights."""

    def __init__(self, model, optimizer, scaler, adv_lr=1e-4, start_epoch=1):
        self.model = model
        self.optimizer = optimizer
        self.scaler = scaler
        self.adv_lr = adv_lr
        self.start_epoch = start_epoch
        self.saved = {}

    def attack_backward(self, batch, epoch):
        if epoch < self.start_epoch:
            return
        self._perturb()
        with torch.autocast("cuda", dtype=torch.float16):
            adv_loss = self.model(**batch).loss
        self.optimizer.zero_grad()
        self.scaler.scale(adv_loss).backward()
        self._restore()

    def _perturb(self):
        for name, param in self.model.named_parameters():
            if param.grad is not None and "embeddings" in name:
                self.saved[name] = param.data.clone()
                param.data.add_(self.adv_lr * param.grad.sign())

    def _restore(self):
        for name, param in self.model.named_parameters():
            if name in self.saved:
                param.data = self.saved[name]
        self.saved = {}


def train(model, loader, epochs, accum_steps, lr=2e-5):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cuda")
    awp = WeightPerturbation(model, optimizer, scaler)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(**batch).loss / accum_steps
            awp.attack_backward(batch, epoch)  # expect: GL201, GL202
            scaler.scale(loss).backward()
            if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
