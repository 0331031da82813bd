import torch


def backward(total_loss, scaler):
    if scaler is not None:
        scaler.scale(total_loss).backward()
    else:
        total_loss.backward()


def train_one_epoch(model, data, loss, optimizer, scaler, accum_freq):
    """Gradient caching for a contrastive loss: features of the window's batches are cached
    without grad, then each batch is re-run and its loss taken over the whole window's batch
    (the other batches' cached features as negatives), so the summed gradients are the big
    batch's; the loss returns a dict of terms."""
    accum_images, accum_texts, accum_features = [], [], {}
    for i, (images, texts) in enumerate(data):
        with torch.no_grad():
            model_out = model(images, texts)
            for key, val in model_out.items():
                accum_features.setdefault(key, []).append(val)
            accum_images.append(images)
            accum_texts.append(texts)
        if ((i + 1) % accum_freq) > 0:
            continue
        optimizer.zero_grad()
        for j in range(accum_freq):
            model_out = model(accum_images[j], accum_texts[j])
            logit_scale = model_out.pop("logit_scale")
            inputs = {}
            for key, val in accum_features.items():
                accumulated = accum_features[key]
                inputs[key] = torch.cat(accumulated[:j] + [model_out[key]] + accumulated[j + 1:])
            losses = loss(**inputs, logit_scale=logit_scale, output_dict=True)
            total_loss = losses["contrastive_loss"]
            backward(total_loss, scaler)
        scaler.step(optimizer)
        scaler.update()
        accum_images, accum_texts, accum_features = [], [], {}
