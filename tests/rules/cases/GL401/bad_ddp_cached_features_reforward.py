import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def backward(total_loss, scaler):
    if scaler is not None:
        scaler.scale(total_loss).backward()
    else:
        total_loss.backward()


def train_one_epoch(model, loader, contrastive_loss, optimizer, scaler, args):
    """Contrastive training with a big effective batch: features of `accum_freq` batches are
    cached without grad, then each batch is re-forwarded against the cached negatives."""
    cached_images, cached_texts, cached_features = [], [], []
    for i, (images, texts) in enumerate(loader):
        optimizer.zero_grad()
        if args.accum_freq == 1:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                image_features, text_features = model(images, texts)
                total_loss = contrastive_loss(image_features, text_features)
            backward(total_loss, scaler)
        else:
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
                cached_features.append(model(images, texts))
            cached_images.append(images)
            cached_texts.append(texts)
            if (i + 1) % args.accum_freq > 0:
                continue
            optimizer.zero_grad()
            for j in range(args.accum_freq):
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    image_features, text_features = model(cached_images[j], cached_texts[j])
                    others = cached_features[:j] + cached_features[j + 1:]
                    all_images = torch.cat([image_features] + [f[0] for f in others])
                    all_texts = torch.cat([text_features] + [f[1] for f in others])
                    total_loss = contrastive_loss(all_images, all_texts)
                backward(total_loss, scaler)  # expect: GL401
        if scaler is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip_norm)
            optimizer.step()
        if args.accum_freq > 1:
            cached_images, cached_texts, cached_features = [], [], []


def main(args, build_model, loader, contrastive_loss):
    torch.distributed.init_process_group("nccl")
    model = DDP(build_model().cuda(), device_ids=[args.local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler("cuda") if args.precision == "amp" else None
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, contrastive_loss, optimizer, scaler, args)
