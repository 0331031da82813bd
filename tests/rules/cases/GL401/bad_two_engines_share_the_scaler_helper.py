import torch
from torch.nn.parallel import DistributedDataParallel


class NativeScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(parameters, 1.0)
            self._scaler.step(optimizer)
            self._scaler.update()


def train_one_epoch(model, loader, optimizer, loss_scaler, accum_iter):
    for step, (samples, _) in enumerate(loader):
        if step % accum_iter == 0:
            optimizer.zero_grad()
        loss = model(samples) / accum_iter
        loss_scaler(loss, optimizer, parameters=model.parameters(), update_grad=(step + 1) % accum_iter == 0)  # expect: GL401, GL205


def train_one_epoch_temporal(model, loader, optimizer, loss_scaler, accum_iter):
    for step, (samples, timestamps, _) in enumerate(loader):
        if step % accum_iter == 0:
            optimizer.zero_grad()
        loss = model(samples, timestamps) / accum_iter
        loss_scaler(loss, optimizer, parameters=model.parameters(), update_grad=(step + 1) % accum_iter == 0)  # expect: GL401, GL205


def main(args, model, loader):
    model = DistributedDataParallel(model.cuda(args.gpu), device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loss_scaler = NativeScaler()
    for epoch in range(args.epochs):
        if args.model_type == "temporal":
            train_one_epoch_temporal(model, loader, optimizer, loss_scaler, args.accum_iter)
        else:
            train_one_epoch(model, loader, optimizer, loss_scaler, args.accum_iter)
