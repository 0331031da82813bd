import torch
import torch.nn as nn

from style import VGGFeatures, gram_matrix, load_image

content = load_image("content.jpg")
style = load_image("style.jpg")
features = VGGFeatures().eval()
target_grams = [gram_matrix(f) for f in features(style)]
content_feat = features(content)[2].detach()
image = content.clone().requires_grad_(True)
optimizer = torch.optim.LBFGS([image], lr=1.0, max_iter=20)
mse = nn.MSELoss()

for step in range(50):
    def closure():
        optimizer.zero_grad()
        feats = features(image)
        style_loss = sum(mse(gram_matrix(f), g) for f, g in zip(feats, target_grams))
        loss = 1e6 * style_loss + mse(feats[2], content_feat)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    with torch.no_grad():
        image.clamp_(0, 1)
    if step % 10 == 0:
        print(f"step {step}: {loss.item():.2f}")
