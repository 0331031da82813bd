import torch
import torch.nn.functional as F
import torchvision

from data import imagenet_val_loader

model = torchvision.models.resnet18(weights="IMAGENET1K_V1").eval()
loader = imagenet_val_loader(batch_size=1)
saliency_maps = []

for i, (image, label) in enumerate(loader):
    model.zero_grad()
    image = image.clone().requires_grad_(True)
    logits = model(image)
    score = F.log_softmax(logits, dim=1)[0, label.item()]
    score.backward()
    saliency_maps.append(image.grad.abs().amax(dim=1).squeeze(0))
    if (i + 1) % 100 == 0:
        torch.save(torch.stack(saliency_maps), f"saliency_{i + 1}.pt")
        saliency_maps.clear()
