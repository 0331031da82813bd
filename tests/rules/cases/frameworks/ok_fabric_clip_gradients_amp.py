import lightning as L
import torch
import torch.nn.functional as F

from vision import ViT


def main(epochs=90, max_norm=1.0):
    fabric = L.Fabric(accelerator="cuda", devices=8, strategy="ddp", precision="16-mixed")
    fabric.launch()
    model = ViT(image_size=224, patch_size=16, num_classes=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.3)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(range(10), batch_size=256))
    for epoch in range(epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels, label_smoothing=0.11)
            fabric.backward(loss)
            fabric.clip_gradients(model, optimizer, max_norm=max_norm)
            optimizer.step()
