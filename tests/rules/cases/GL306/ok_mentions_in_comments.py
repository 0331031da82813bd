"""Mixed precision helpers.

We used to call torch.cuda.amp.autocast() here; torch.autocast("cuda") replaces it.
"""
import torch

AMP_DOC = "see torch.cuda.amp.GradScaler() in the old docs"


def amp_context(enabled):
    # formerly: torch.cuda.amp.autocast(enabled=enabled)
    return torch.autocast("cuda", enabled=enabled)
