"""PGD adversarial training over an accumulation window: the attack steps clear the gradients
between their own backward passes, and the last one writes the backed-up window gradients back
before its backward, so the step still sees the whole window."""
import torch


class PGD:
    def __init__(self, model, eps=1.0, alpha=0.3):
        self.model = model
        self.eps, self.alpha = eps, alpha
        self.emb_backup, self.grad_backup = {}, {}

    def attack(self, is_first_attack=False):
        for name, param in self.model.named_parameters():
            if param.requires_grad and "word_embeddings" in name:
                if is_first_attack:
                    self.emb_backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0:
                    param.data.add_(self.alpha * param.grad / norm)

    def restore(self):
        for name, param in self.model.named_parameters():
            if name in self.emb_backup:
                param.data = self.emb_backup[name]
        self.emb_backup = {}

    def backup_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.grad_backup[name] = param.grad.clone() if param.grad is not None else None

    def restore_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                param.grad = self.grad_backup[name]


def train(model, loader, optimizer, accum_steps, k=3):
    pgd = PGD(model)
    for step, batch in enumerate(loader):
        loss = model(**batch).loss / accum_steps
        loss.backward()
        pgd.backup_grad()
        for t in range(k):
            pgd.attack(is_first_attack=(t == 0))
            if t != k - 1:
                model.zero_grad()
            else:
                pgd.restore_grad()
            loss_adv = model(**batch).loss / accum_steps
            loss_adv.backward()
        pgd.restore()
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            model.zero_grad()
