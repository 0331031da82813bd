import torch
import torch.nn as nn

from models import Darknet
from datasets import ListDataset


def compute_loss(predictions, targets, model):
    device = targets.device
    lcls, lbox, lobj = torch.zeros(1, device=device), torch.zeros(1, device=device), torch.zeros(1, device=device)
    bce_cls = nn.BCEWithLogitsLoss()
    bce_obj = nn.BCEWithLogitsLoss()
    for layer, pred in enumerate(predictions):
        tobj = torch.zeros_like(pred[..., 0])
        matched = targets[targets[:, 0] == layer]
        if len(matched):
            lbox += (1.0 - model.iou(pred, matched)).mean()
            lcls += bce_cls(pred[..., 5:], model.one_hot(matched))
        lobj += bce_obj(pred[..., 4], tobj)
    lbox *= 0.05
    lobj *= 1.0
    lcls *= 0.5
    loss = lbox + lobj + lcls
    return loss, torch.cat((lbox, lobj, lcls, loss)).detach().cpu()


def train(cfg="yolov3.cfg", epochs=100, subdivisions=4, device="cuda"):
    model = Darknet(cfg).to(device)
    loader = torch.utils.data.DataLoader(ListDataset("train.txt"), batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    for epoch in range(1, epochs + 1):
        model.train()
        for batch_i, (imgs, targets) in enumerate(loader):
            batches_done = len(loader) * epoch + batch_i
            outputs = model(imgs.to(device))
            loss, components = compute_loss(outputs, targets.to(device), model)
            (loss / subdivisions).backward()  # expect: GL201
            if batches_done % subdivisions == 0:
                optimizer.step()
                optimizer.zero_grad()
