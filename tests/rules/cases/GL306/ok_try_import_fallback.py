import torch

try:
    from torch.amp import GradScaler
except ImportError:  # older torch
    from torch.cuda.amp import GradScaler

scaler = GradScaler()
