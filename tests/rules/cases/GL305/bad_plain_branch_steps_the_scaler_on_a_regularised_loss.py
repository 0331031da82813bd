"""Ranking trainer with fp16 and fp32 branches: the fp32 branch backpropagates the loss plus a
sparsity term summed over the batch's vectors, then steps the GradScaler as the fp16 branch
does; the scaler divides gradients that were never scaled."""
import itertools

import torch


def train(model, loader, optimizer, config, use_fp16, cuda_device):
    scaler = torch.amp.GradScaler("cuda", enabled=use_fp16)
    for i, batch in enumerate(loader):
        with torch.autocast("cuda", enabled=use_fp16):
            scores, sparsity_vecs = model(batch["query"], batch["doc"])
            loss = torch.nn.functional.margin_ranking_loss(scores[0], scores[1], batch["target"])
        if config["train_sparsity"]:
            sparsity_loss = torch.zeros(1).cuda(cuda_device)
            for vec in itertools.chain.from_iterable(sparsity_vecs):
                sparsity_loss = sparsity_loss + vec.mean()
            loss = loss + config["sparsity_lambda"] * sparsity_loss
        if use_fp16:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()  # expect: GL305
            scaler.step(optimizer)
            scaler.update()
        optimizer.zero_grad()
