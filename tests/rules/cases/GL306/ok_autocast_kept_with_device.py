import functools

import torch


def make_autocast(device_type, dtype):
    """The device-generic autocast, bound to the device and stored for the training step."""
    autocast = functools.partial(torch.autocast, device_type, dtype=dtype)
    fallback = torch.amp.autocast if hasattr(torch, "amp") else torch.cuda.amp.autocast
    return autocast, fallback


def uses_the_class_for_checks(scaler):
    return isinstance(scaler, torch.cuda.amp.GradScaler)


def default_scaler_class(torch_greater_equal_2_4):
    return torch.amp.GradScaler if torch_greater_equal_2_4 else torch.cuda.amp.GradScaler
