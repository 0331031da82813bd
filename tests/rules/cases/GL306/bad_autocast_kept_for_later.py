import contextlib

import torch


def batch_forward(model, batch, dtype, scaler, device):
    """The autocast callable is chosen once per device and called below under another name."""
    amp_autocast = torch.cuda.amp.autocast  # expect: GL306
    if device == "npu":
        amp_autocast = torch.npu.amp.autocast
    contexts = {
        "fp16": amp_autocast(enabled=scaler is not None, dtype=torch.float16),
        "bf16": amp_autocast(enabled=True, dtype=torch.bfloat16),
        "fp32": contextlib.nullcontext(),
    }
    with contexts[dtype]:
        return model(**batch)
