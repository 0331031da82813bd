"""Clean and poisoned batches zipped in the loop's header: the epoch is as long as the shorter
loader, and its last partial window is never stepped."""
import torch


def train(model, train_loader, poisoned_loader, optimizer, num_epochs, accumulation_steps=8):
    model.zero_grad()
    for epoch in range(num_epochs):
        for step, (inputs, poisoned) in enumerate(zip(train_loader, poisoned_loader)):
            loss = model(**inputs).loss + 0.5 * model(**poisoned).loss
            (loss / accumulation_steps).backward()
            if (step + 1) % accumulation_steps == 0:  # expect: GL205
                optimizer.step()
                model.zero_grad()
