import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_


def train(backbone, partial_fc, loader, opt_backbone, opt_pfc, fp16=True):
    """Partial FC: the classifier computes the gradient of the features itself, and the
    backbone backpropagates that gradient, scaled on the fp16 side."""
    grad_amp = torch.amp.GradScaler("cuda") if fp16 else None
    for img, label in loader:
        features = F.normalize(backbone(img))
        x_grad, loss_v = partial_fc.forward_backward(label, features, opt_pfc)
        if fp16:
            features.backward(grad_amp.scale(x_grad))
            grad_amp.unscale_(opt_backbone)
            clip_grad_norm_(backbone.parameters(), max_norm=5, norm_type=2)
            grad_amp.step(opt_backbone)
            grad_amp.update()
        else:
            features.backward(x_grad)
            clip_grad_norm_(backbone.parameters(), max_norm=5, norm_type=2)
            opt_backbone.step()
        opt_pfc.step()
        opt_backbone.zero_grad()
        opt_pfc.zero_grad()
