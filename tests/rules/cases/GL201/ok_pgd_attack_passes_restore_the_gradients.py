import torch
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

from data import build_loaders


class EmbeddingPGD:
    """Projected gradient attack on the word embeddings, keeping the clean gradients aside."""

    def __init__(self, model, emb_name="word_embeddings"):
        self.model = model
        self.emb_name = emb_name
        self.emb_backup = {}
        self.grad_backup = {}

    def attack(self, epsilon=1.0, alpha=0.3, is_first_attack=False):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                if is_first_attack:
                    self.emb_backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0 and not torch.isnan(norm):
                    param.data.add_(alpha * param.grad / norm)
                    param.data = self.project(name, param.data, epsilon)

    def project(self, name, data, epsilon):
        r = data - self.emb_backup[name]
        if torch.norm(r) > epsilon:
            r = epsilon * r / torch.norm(r)
        return self.emb_backup[name] + r

    def restore(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                param.data = self.emb_backup[name]
        self.emb_backup = {}

    def backup_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and param.grad is not None:
                self.grad_backup[name] = param.grad.clone()

    def restore_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                param.grad = self.grad_backup[name]


def train(epochs=3, adv_steps=3):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-chinese", num_labels=15).cuda()
    train_loader, _ = build_loaders(batch_size=32)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    scheduler = get_linear_schedule_with_warmup(optimizer, 100, epochs * len(train_loader))
    pgd = EmbeddingPGD(model)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            batch = {k: v.cuda() for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()
            pgd.backup_grad()
            for t in range(adv_steps):
                pgd.attack(is_first_attack=(t == 0))
                if t != adv_steps - 1:
                    model.zero_grad()
                else:
                    pgd.restore_grad()
                loss_adv = model(batch["input_ids"], labels=batch["labels"]).loss
                loss_adv.backward()
            pgd.restore()
            optimizer.step()
            scheduler.step()
            model.zero_grad()
