"""FGM adversarial training under AMP: both the batch's loss and the adversarial loss are
scaled before their backward."""
import torch


class FGM:
    def __init__(self, model, epsilon=1.0, emb_name="word_embeddings"):
        self.model, self.epsilon, self.emb_name, self.backup = model, epsilon, emb_name, {}

    def attack(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name and param.grad is not None:
                self.backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0:
                    param.data.add_(self.epsilon * param.grad / norm)

    def restore(self):
        for name, param in self.model.named_parameters():
            if name in self.backup:
                param.data = self.backup[name]
        self.backup = {}


def train_fn(loader, model, criterion, optimizer, use_fgm=True):
    scaler = torch.amp.GradScaler("cuda")
    fgm = FGM(model)
    for inputs, labels in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(inputs), labels)
        scaler.scale(loss).backward()
        if use_fgm:
            fgm.attack()
            with torch.autocast("cuda"):
                loss_adv = criterion(model(inputs), labels)
            scaler.scale(loss_adv).backward()
            fgm.restore()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
