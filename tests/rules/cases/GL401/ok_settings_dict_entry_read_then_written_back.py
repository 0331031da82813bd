"""Segmenter style: `main` reads `net_kwargs = variant["net_kwargs"]`, edits it, builds the DDP
model from it and writes it back (`variant["net_kwargs"] = net_kwargs`) for the log; each
micro-batch steps, so nothing accumulates. Reading the entry's role must not go round that
cycle forever."""

import torch
from torch.nn.parallel import DistributedDataParallel


def main(model_cfg, dataset_cfg, create_segmenter, create_dataset, gpu):
    variant = dict(net_kwargs=model_cfg, dataset_kwargs=dataset_cfg, epochs=64)
    dataset_kwargs = variant["dataset_kwargs"]
    train_loader = create_dataset(dataset_kwargs)
    net_kwargs = variant["net_kwargs"]
    net_kwargs["n_cls"] = train_loader.unwrapped.n_cls
    model = DistributedDataParallel(create_segmenter(net_kwargs).to(gpu), device_ids=[gpu])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    variant["net_kwargs"] = net_kwargs
    variant["dataset_kwargs"] = dataset_kwargs
    for epoch in range(variant["epochs"]):
        for batch in train_loader:
            seg_pred = model(batch["im"].to(gpu))
            loss = torch.nn.functional.cross_entropy(seg_pred, batch["segmentation"].to(gpu), ignore_index=255)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_stats = create_dataset(net_kwargs)
        print(epoch, val_stats)
