import torch
import torch.nn.functional as F


class ContrastiveLoss(torch.nn.Module):
    """CLIP's symmetric loss, returned as named terms (the mean over the batch it is given)."""

    def forward(self, image_features, text_features, logit_scale):
        logits = logit_scale * image_features @ text_features.t()
        labels = torch.arange(logits.shape[0], device=logits.device)
        return {
            "image_to_text": F.cross_entropy(logits, labels),
            "text_to_image": F.cross_entropy(logits.t(), labels),
        }


def train_epoch(model, loader, optimizer, args):
    """Gradient caching: every batch of the window is encoded without grad first, then each is
    re-encoded and its loss taken over the whole window (its live features among the cached
    ones): the chunks' gradients add up to the window's, so nothing is divided."""
    criterion = ContrastiveLoss()
    cached_images, cached_texts, cached_image_features, cached_text_features = [], [], [], []
    for step, (images, texts) in enumerate(loader):
        with torch.no_grad():
            out = model(images, texts)
        cached_image_features.append(out["image_features"])
        cached_text_features.append(out["text_features"])
        cached_images.append(images)
        cached_texts.append(texts)
        if (step + 1) % args.accumulation_steps > 0:
            continue
        optimizer.zero_grad()
        for j in range(args.accumulation_steps):
            out = model(cached_images[j], cached_texts[j])
            image_features = torch.cat(cached_image_features[:j] + [out["image_features"]] + cached_image_features[j + 1:])
            text_features = torch.cat(cached_text_features[:j] + [out["text_features"]] + cached_text_features[j + 1:])
            terms = criterion(image_features, text_features, out["logit_scale"])
            loss = 0.0
            for name, value in terms.items():
                loss += value
            loss.backward()
        optimizer.step()
        cached_images, cached_texts, cached_image_features, cached_text_features = [], [], [], []
