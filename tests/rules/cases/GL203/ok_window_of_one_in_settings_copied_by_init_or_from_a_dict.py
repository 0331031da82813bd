"""Kaggle-notebook settings: the window is 1 in the parameters cell, whether an `__init__`
copies the module constant onto the settings object, a settings object copies a dict's items,
or the loop reads the dict itself. Nothing accumulates: the clip and the step run together."""
import torch

gradient_accumulation_steps = 1
max_grad_norm = 1000


class Config:
    def __init__(self):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.max_grad_norm = max_grad_norm


CFG = Config()

param = {"apex": True, "n_gradient_accumulation_steps": 1, "max_grad_norm": 1000}


class DictConfig:
    def __init__(self, d: dict) -> None:
        for k, v in d.items():
            setattr(self, k, v)


cfg = DictConfig(d=param)

SETTINGS = {"grad_accum": 1, "clip": 1.0}


def train_fn(train_loader, model, criterion, optimizer, scaler):
    for step, (inputs, labels) in enumerate(train_loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(inputs.cuda()), labels.cuda())
        if CFG.gradient_accumulation_steps > 1:
            loss = loss / CFG.gradient_accumulation_steps
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        if (step + 1) % CFG.gradient_accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_dict_config(train_loader, model, criterion, optimizer):
    for step, (inputs, labels) in enumerate(train_loader):
        loss = criterion(model(inputs.cuda()), labels.cuda()) / cfg.n_gradient_accumulation_steps
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
        if (step + 1) % cfg.n_gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_settings_dict(train_loader, model, criterion, optimizer):
    for step, (inputs, labels) in enumerate(train_loader):
        loss = criterion(model(inputs.cuda()), labels.cuda()) / SETTINGS["grad_accum"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), SETTINGS["clip"])
        if (step + 1) % SETTINGS["grad_accum"] == 0:
            optimizer.step()
            optimizer.zero_grad()
