"""A news recommender trained with torch.multiprocessing: the step waits for the window, or for
the step the config's sample count marks as the last; the loss is backpropagated undivided and
every micro-batch's backward all-reduces through DDP."""
import torch
import torch.distributed as dist
from torch.cuda import amp
from tqdm import tqdm

from newsrec.data import load_train_loader
from newsrec.model import GLORY


def train(model, optimizer, scaler, scheduler, dataloader, local_rank, cfg):
    model.train()
    for cnt, (subgraph, mapping_idx, candidates, labels) in enumerate(tqdm(dataloader, disable=local_rank != 0), start=1):
        with amp.autocast():  # expect: GL306
            bz_loss, y_hat = model(subgraph, mapping_idx, candidates, labels)
        scaler.scale(bz_loss).backward()  # expect: GL201, GL401
        if cnt % cfg.accumulation_steps == 0 or cnt == int(cfg.dataset.pos_count / cfg.batch_size):
            scaler.step(optimizer)
            scaler.update()
            if scheduler is not None:
                scheduler.step()
            optimizer.zero_grad(set_to_none=True)


def main_worker(local_rank, cfg):
    dist.init_process_group("nccl", rank=local_rank, world_size=cfg.gpu_num)
    model = GLORY(cfg).to(local_rank)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optimizer.lr)
    scaler = amp.GradScaler()  # expect: GL306
    for epoch in range(cfg.num_epochs):
        train(model, optimizer, scaler, None, load_train_loader(cfg, local_rank), local_rank, cfg)
