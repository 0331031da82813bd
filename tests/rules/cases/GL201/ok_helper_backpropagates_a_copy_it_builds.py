"""At checkpoint steps, between the window's backward and its step, a helper rebuilds the model
from its state dict and clears that copy's gradients before computing statistics on it: the
trained model's gradients are untouched."""
import torch


def gradient_statistics(model, batch):
    copy_of_model = initialize_model(model.config)
    copy_of_model.load_state_dict(model.state_dict())
    copy_of_model.zero_grad()
    loss = copy_of_model(batch["input_ids"], labels=batch["labels"]).loss
    loss.backward()
    return {name: p.grad.norm().item() for name, p in copy_of_model.named_parameters() if p.grad is not None}


def initialize_model(config):
    raise NotImplementedError


def train(model, loader, optimizer, accum, save_every):
    for step, batch in enumerate(loader):
        loss = model(batch["input_ids"], labels=batch["labels"]).loss / accum
        loss.backward()
        if (step + 1) % save_every == 0:
            print(gradient_statistics(model, batch))
        if (step + 1) % accum == 0 or step + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
