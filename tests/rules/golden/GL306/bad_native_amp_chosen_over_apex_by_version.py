"""A trainer vendored from an old transformers release: the version test chooses native AMP
over apex, and native AMP is imported from torch.cuda.amp, deprecated on every torch since."""
import torch
from packaging import version

if version.parse(torch.__version__) < version.parse("1.6"):
    from apex import amp
else:
    _is_native_amp_available = True
    from torch.amp import autocast


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.use_amp = args.fp16 and _is_native_amp_available

    def training_step(self, model, inputs):
        model.train()
        if self.use_amp:
            with autocast("cuda"):  # expect: GL306
                loss = model(**inputs).loss
        else:
            loss = model(**inputs).loss
        return loss
