import torch
from accelerate import Accelerator

GRADIENT_ACCUMULATE_EVERY = 4


def train(model, train_loader, num_batches, lr=1e-4):
    accelerator = Accelerator(gradient_accumulation_steps=GRADIENT_ACCUMULATE_EVERY)
    optim = torch.optim.Adam(model.parameters(), lr=lr)
    model, optim, train_loader = accelerator.prepare(model, optim, train_loader)
    batches = iter(train_loader)
    for i in range(num_batches):
        model.train()
        with accelerator.accumulate(model):
            loss = model(next(batches), return_loss=True)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 0.5)  # expect: GL203
            optim.step()
            optim.zero_grad()
