import torch

from anomaly.models import wide_resnet50_backbone, BottleneckFusion, ReverseDecoder
from anomaly.data import mvtec_loader
from anomaly.losses import cosine_distance_loss


def train(category, epochs=200, accumulation_steps=2, device="cuda"):
    encoder = wide_resnet50_backbone(pretrained=True).to(device).eval()
    fusion = BottleneckFusion().to(device)
    decoder = ReverseDecoder().to(device)
    opt_fusion = torch.optim.Adam(fusion.parameters(), lr=5e-3, betas=(0.5, 0.999))
    opt_decoder = torch.optim.Adam(decoder.parameters(), lr=5e-3, betas=(0.5, 0.999))
    loader = mvtec_loader(category, batch_size=16)
    for epoch in range(epochs):
        for i, images in enumerate(loader):
            with torch.no_grad():
                features = encoder(images.to(device))
            loss = cosine_distance_loss(features, decoder(fusion(features))) / accumulation_steps
            loss.backward()
            if (i + 1) % accumulation_steps == 0 or i + 1 == len(loader):  # expect: GL205
                opt_fusion.step()
                opt_decoder.step()
                opt_decoder.zero_grad()  # expect: GL202
                opt_fusion.zero_grad()  # expect: GL202
