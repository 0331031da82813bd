"""A notebook names its progress bar inside the loop header (`enumerate(t := tqdm(loader))`) to
update its description; the window test has no flush at the epoch's end."""
import torch
from tqdm import tqdm


def train(model, loader, optimizer, epochs, accumulation_steps=8):
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(t := tqdm(loader)):
            loss = model(**batch).loss / accumulation_steps
            loss.backward()
            t.set_description(f"loss {loss.item() * accumulation_steps:.4f}")
            if (step + 1) % accumulation_steps == 0 or step + 1 == len(loader):  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
