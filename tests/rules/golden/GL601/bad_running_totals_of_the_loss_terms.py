"""Detection-style epoch logging: the loss is a weighted sum of a classification and a box
term, and the epoch totals add the terms themselves (and the perplexity of the total) with the
graph they share with the backpropagated loss."""
import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, box_weight=2.0):
    model.train()
    epoch_cls, epoch_box, epoch_ppl = 0.0, 0.0, 0.0
    for images, labels, boxes in loader:
        logits, pred_boxes = model(images.cuda())
        cls_loss = F.cross_entropy(logits, labels.cuda())
        box_loss = F.smooth_l1_loss(pred_boxes, boxes.cuda())
        loss = cls_loss + box_weight * box_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_cls += cls_loss.item()  # expect: GL601
        epoch_box += box_loss.item() * images.size(0)  # expect: GL601
        epoch_ppl += torch.exp(loss).item()  # expect: GL601
    n = len(loader)
    print(f"cls {epoch_cls / n:.4f} box {epoch_box / n:.4f} ppl {epoch_ppl / n:.2f}")
