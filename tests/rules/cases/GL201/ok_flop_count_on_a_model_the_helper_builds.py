"""The loop divides its loss by the window; with each micro-batch a metrics helper counts FLOPs by
building a copy of the model on the meta device and backpropagating through it. That backward
touches the copy only, not the window's gradients."""
import copy

import torch
from torch.utils.flop_counter import FlopCounterMode


def measure_flops(model_config, block_size):
    with torch.device("meta"):
        config_copy = copy.deepcopy(model_config)
        meta_model = config_copy.construct_model()
        x = torch.randint(0, config_copy.vocab_size, (1, block_size))
        counter = FlopCounterMode(display=False)
        with counter:
            meta_model(input_ids=x, labels=x)["loss"].backward()
    return counter.get_total_flops()


def train(model, loader, optimizer, cfg):
    for step, batch in enumerate(loader):
        loss = model(input_ids=batch["input_ids"], labels=batch["labels"])["loss"]
        (loss / cfg.gradient_accumulation_steps).backward()
        if (step + 1) % cfg.gradient_accumulation_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
        if cfg.measure_utilization:
            print("flops per token", measure_flops(model.config, cfg.block_size) / cfg.block_size)
