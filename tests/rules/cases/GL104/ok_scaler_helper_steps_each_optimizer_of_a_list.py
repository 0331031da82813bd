"""A VideoMAE-style pretraining epoch whose loss-scaler helper takes one optimizer or a list of
them and steps each: the loop hands it one optimizer and clears that one every batch."""
import math
import sys

import torch


class NativeScalerWithGradNormCount:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if not update_grad:
            return None
        if not isinstance(optimizer, list):
            self._scaler.unscale_(optimizer)
        else:
            for optim in optimizer:
                self._scaler.unscale_(optim)
        norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad) if clip_grad is not None else None
        if not isinstance(optimizer, list):
            self._scaler.step(optimizer)
        else:
            for optim in optimizer:
                self._scaler.step(optim)
        self._scaler.update()
        return norm


def train_multimodal_one_epoch(model, data_loader, optimizer, device, loss_scaler, max_norm=0.0):
    model.train()
    for step, (videos, audio, bool_masked_pos) in enumerate(data_loader):
        videos, audio = videos.to(device, non_blocking=True), audio.to(device, non_blocking=True)
        with torch.autocast("cuda"):
            loss = model(videos, audio, bool_masked_pos)
        if not math.isfinite(loss.item()):
            print(f"Loss is {loss.item()}, stopping training")
            sys.exit(1)
        optimizer.zero_grad()
        grad_norm = loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters())
        torch.cuda.synchronize()


def main(model, data_loader, epochs=800, device="cuda"):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4, betas=(0.9, 0.95))
    loss_scaler = NativeScalerWithGradNormCount()
    for epoch in range(epochs):
        train_multimodal_one_epoch(model, data_loader, optimizer, device, loss_scaler, max_norm=0.02)
