"""The epoch's last batch is skipped (the poisoned loader is one batch short), but the micro-batches
of the partial window before it are still never stepped."""
import torch


def train(model, train_loader, poisoned_loader, optimizer, scheduler, num_epochs, accumulation_steps=4):
    model.zero_grad()
    for epoch in range(num_epochs):
        epoch_iterator = zip(train_loader, poisoned_loader)
        for step, (inputs, poisoned) in enumerate(epoch_iterator):
            if step == len(train_loader) - 1:
                continue  # skip last step
            loss = model(**inputs).loss + model(**poisoned).loss
            (loss / accumulation_steps).backward()
            if (step + 1) % accumulation_steps == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
