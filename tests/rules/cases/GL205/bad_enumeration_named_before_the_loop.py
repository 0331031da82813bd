"""Preference tuning by hand: each epoch names its enumeration of the dataset (in a progress bar)
before iterating it, backpropagates each pair's loss divided by the window, and steps every
`num_microbatches` pairs. The epoch's last partial window is never stepped."""

import torch
from tqdm import tqdm


def train(model, ref_model, train_dataset, optimizer, dpo_loss, num_microbatches=64, n_epochs=1, beta=0.1):
    model.train()
    for epoch in range(n_epochs):
        pbar = enumerate(tqdm(train_dataset, desc=f"epoch {epoch}"))
        for idx, (prompt, chosen, rejected) in pbar:
            loss = dpo_loss(model, ref_model, beta, prompt, chosen, rejected) / num_microbatches
            loss.backward()
            if (idx + 1) % num_microbatches == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
