import torch


def train(encoder, decoder, loader, args):
    """The encoder is clipped (after its optimizer is unscaled); the decoder is not clipped at
    all, so its optimizer is unscaled by its own step."""
    encoder_optimizer = torch.optim.AdamW(encoder.parameters(), lr=args.lr)
    decoder_optimizer = torch.optim.AdamW(decoder.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler("cuda")
    for images, captions in loader:
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = decoder(encoder(images), captions)
        scaler.scale(loss).backward()
        scaler.unscale_(encoder_optimizer)
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), args.max_norm)
        scaler.step(encoder_optimizer)
        scaler.step(decoder_optimizer)
        scaler.update()


def train_both_unscaled(model, loader, args, Muon):
    matrices = [p for p in model.parameters() if p.ndim == 2]
    others = [p for p in model.parameters() if p.ndim != 2]
    muon, adamw = Muon(matrices, lr=args.lr), torch.optim.AdamW(others, lr=args.lr)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        muon.zero_grad()
        adamw.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(muon)
        scaler.unscale_(adamw)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)
        scaler.step(muon)
        scaler.step(adamw)
        scaler.update()


def train_with_optional_embedding_optimizer(model, loader, config):
    """A separate optimizer for the word embeddings exists only without fp16: under the scaler
    only `optimizer` steps, and it was unscaled before the clip."""
    embedding_params = [p for n, p in model.named_parameters() if "word_embeddings" in n]
    other_params = [p for n, p in model.named_parameters() if "word_embeddings" not in n]
    use_embedding_optimizer = config["train_embedding"] and not config["use_fp16"]
    embedding_optimizer = None
    if use_embedding_optimizer:
        embedding_optimizer = torch.optim.SparseAdam(embedding_params, lr=config["embedding_lr"])
    optimizer = torch.optim.Adam(other_params, lr=config["lr"])
    scaler = torch.amp.GradScaler("cuda", enabled=config["use_fp16"])
    for batch in loader:
        with torch.autocast("cuda", enabled=config["use_fp16"]):
            loss = model(**batch)
        if config["use_fp16"]:
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10_000)
            scaler.step(optimizer)
            if use_embedding_optimizer:
                scaler.step(embedding_optimizer)
                embedding_optimizer.zero_grad()
            scaler.update()
            optimizer.zero_grad()
