from dataclasses import dataclass

import torch
from lightning.fabric import Fabric


@dataclass
class TrainingState:
    fabric: Fabric
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    current_step: int = 0
    accumulate_grad_batches: int = 1


def train_one_epoch(state: TrainingState, train_dataloader):
    """The window comes from the command line: the loss is not divided by it."""
    fabric, model, optimizer = state.fabric, state.model, state.optimizer
    model.train()
    for x, y in train_dataloader:
        state.current_step += 1
        accumulating = state.current_step % state.accumulate_grad_batches != 0
        with fabric.no_backward_sync(model, enabled=accumulating):
            loss = model(inputs=x, labels=y)
            fabric.backward(loss)  # expect: GL201
        if not accumulating:
            optimizer.step()
            optimizer.zero_grad()


def train(model, train_dataloader, epochs, lr, accumulate_grad_batches):
    fabric = Fabric(precision="bf16-mixed")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer = fabric.setup(model, optimizer)
    state = TrainingState(fabric=fabric, model=model, optimizer=optimizer)
    state.accumulate_grad_batches = accumulate_grad_batches
    for _ in range(epochs):
        train_one_epoch(state=state, train_dataloader=train_dataloader)
