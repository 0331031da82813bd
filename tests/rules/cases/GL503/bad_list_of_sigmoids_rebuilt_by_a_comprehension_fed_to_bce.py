"""A sound separator's forward: the masks predicted for each query are rebuilt as a list of
their sigmoids when binary masks are asked for, and each is fed to `binary_cross_entropy`."""
import torch
import torch.nn.functional as F


class Separator(torch.nn.Module):
    def __init__(self, net_sound, synth_net, use_binary_mask=True):
        super().__init__()
        self.net_sound = net_sound
        self.synth_net = synth_net
        self.use_binary_mask = use_binary_mask

    def forward(self, batch, img_emb):
        N = len(img_emb)
        feat_sound = self.net_sound(batch["mag_mix"])
        pred_masks = [self.synth_net(img_emb[n], feat_sound) for n in range(N)]
        if self.use_binary_mask:
            pred_masks = [torch.sigmoid(mask) for mask in pred_masks]
        gt_masks = [batch["gt_masks"][n] for n in range(N)]
        weight = batch["weight"]
        loss = torch.mean(torch.stack([F.binary_cross_entropy(pred_masks[n], gt_masks[n], weight) for n in range(N)]))  # expect: GL503
        return loss, pred_masks
