"""MAE-style checkpoint utilities: an ensemble loader wraps the model in DDP and hands
`model_ema=None` to the resume helper, which reads an attribute of that object; the loss-scaler
helper of the same module backpropagates, clips after unscaling and steps."""
import torch


class NativeScalerWithGradNormCount:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            self._scaler.unscale_(optimizer)
            if clip_grad is not None:
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()


def _load_checkpoint_for_ema(model_ema, checkpoint):
    if hasattr(model_ema, "module"):
        model_ema.module.load_state_dict(checkpoint["model_ema"])


def auto_load_model(args, model, optimizer, loss_scaler, model_ema=None):
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        if model_ema is not None and "model_ema" in checkpoint:
            _load_checkpoint_for_ema(model_ema, checkpoint)


def load_model_for_ensembles(model, optimizer, loss_scaler, args):
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    auto_load_model(args=args, model=model, optimizer=optimizer, loss_scaler=loss_scaler, model_ema=None)
    return model


def train_one_epoch(model, loader, optimizer, loss_scaler, max_norm=1.0):
    for samples, targets in loader:
        with torch.autocast("cuda"):
            loss = torch.nn.functional.cross_entropy(model(samples), targets)
        optimizer.zero_grad()
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters())
