import argparse

import deepspeed
import torch.nn.functional as F

from model import GPT2Model
from data import build_dataset

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

model = GPT2Model(n_layer=24, n_embd=1024)
train_set = build_dataset("openwebtext")
# gradient_accumulation_steps, fp16 loss scaling and gradient_clipping live in ds_config.json
model_engine, optimizer, train_loader, lr_scheduler = deepspeed.initialize(
    args=args, model=model, model_parameters=model.parameters(), training_data=train_set
)

for epoch in range(3):
    for step, (input_ids, labels) in enumerate(train_loader):
        input_ids = input_ids.to(model_engine.local_rank)
        labels = labels.to(model_engine.local_rank)
        logits = model_engine(input_ids)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
        model_engine.backward(loss)
        model_engine.step()
        if model_engine.is_gradient_accumulation_boundary() and step % 100 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
