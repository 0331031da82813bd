"""A text-matching fine-tune whose adversarial attacker is chosen by a command-line option: only
the PGD attacker keeps the clean gradients aside, and only its branch restores them."""
import argparse

import torch
from transformers import BertForSequenceClassification


class FGM:
    def __init__(self, model, emb_name="word_embeddings"):
        self.model, self.emb_name, self.backup = model, emb_name, {}

    def attack(self, epsilon=1.0):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                self.backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0:
                    param.data.add_(epsilon * param.grad / norm)

    def restore(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                param.data = self.backup[name]
        self.backup = {}


class PGD:
    def __init__(self, model, emb_name="word_embeddings"):
        self.model, self.emb_name = model, emb_name
        self.emb_backup, self.grad_backup = {}, {}

    def attack(self, epsilon=1.0, alpha=0.3, is_first_attack=False):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                if is_first_attack:
                    self.emb_backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0:
                    param.data.add_(alpha * param.grad / norm)

    def restore(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and self.emb_name in name:
                param.data = self.emb_backup[name]
        self.emb_backup = {}

    def backup_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.grad_backup[name] = param.grad.clone()

    def restore_grad(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                param.grad = self.grad_backup[name]


def train(model, attack_model, loader, optimizer, epoch, args):
    model.train()
    for input_ids, attention_mask, labels in loader:
        loss = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss
        loss.backward()
        if args.attack == "fgm":
            attack_model.attack()
            loss_adv = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss
            loss_adv.backward()
            attack_model.restore()
        elif args.attack == "pgd" and epoch > 0:
            K = 3
            attack_model.backup_grad()
            for t in range(K):
                attack_model.attack(is_first_attack=(t == 0))
                if t != K - 1:
                    model.zero_grad()
                else:
                    attack_model.restore_grad()
                loss_adv = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss
                loss_adv.backward()
            attack_model.restore()
        optimizer.step()
        model.zero_grad()


def run(loader, epochs=3):
    parser = argparse.ArgumentParser()
    parser.add_argument("--attack", choices=["fgm", "pgd"], default="pgd")
    args = parser.parse_args()
    model = BertForSequenceClassification.from_pretrained("hfl/chinese-roberta-wwm-ext", num_labels=2).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    if args.attack == "fgm":
        attack_model = FGM(model)
    else:
        attack_model = PGD(model)
    for epoch in range(epochs):
        train(model, attack_model, loader, optimizer, epoch, args)
