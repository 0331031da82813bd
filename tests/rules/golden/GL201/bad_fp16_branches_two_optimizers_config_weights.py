import torch


def train(model, loader, ranking_loss_fn, inbatch_loss_fn, optimizer, embedding_optimizer, scaler, config):
    """A ranking trainer: the main and the embedding optimizer step together, on either side of
    the fp16 switch; the in-batch term is weighed by config settings, and nothing divides the
    loss by the accumulation window."""
    use_fp16 = config["use_fp16"]
    accumulation_steps = config["gradient_accumulation_steps"]
    for i, batch in enumerate(loader):
        with torch.autocast("cuda", enabled=use_fp16):
            pos, neg = model(batch["query"], batch["pos"]), model(batch["query"], batch["neg"])
            loss = ranking_loss_fn(pos, neg, batch["label"])
            loss = loss * config["main_pair_lambda"] + inbatch_loss_fn(pos, neg) * config["in_batch_neg_lambda"]
        if use_fp16:
            scaler.scale(loss / accumulation_steps).backward()  # expect: GL201
            if (1 + i) % accumulation_steps == 0 or i + 1 == len(loader):  # expect: GL205
                scaler.step(optimizer)
                scaler.step(embedding_optimizer)
                scaler.update()
                optimizer.zero_grad()
                embedding_optimizer.zero_grad()
        else:
            (loss / accumulation_steps).backward()  # expect: GL201
            if (1 + i) % accumulation_steps == 0:
                optimizer.step()
                embedding_optimizer.step()
                optimizer.zero_grad()
                embedding_optimizer.zero_grad()
