import torch


@torch.no_grad()
def evaluate(model, loader, cfg):
    model.eval()
    correct = 0
    for images, labels in loader:
        with torch.cuda.amp.autocast(dtype=torch.bfloat16, enabled=cfg.amp):  # expect: GL306
            logits = model(images.cuda())
        correct += (logits.argmax(-1) == labels.cuda()).sum().item()
    return correct / len(loader.dataset)
