import torch


def train_sft(model, train_loader, optimizer, config, device):
    """The step counter runs on across epochs, but every epoch starts by clearing the gradients:
    the micro-batches since the last step of the previous epoch are thrown away."""
    global_step = 0
    for epoch in range(config.epochs):
        model.train()
        optimizer.zero_grad(set_to_none=True)
        for batch in train_loader:
            outputs = model(input_ids=batch["input_ids"].to(device), labels=batch["labels"].to(device))
            loss = outputs.loss / config.grad_accum_steps
            loss.backward()
            global_step += 1
            if global_step % config.grad_accum_steps == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
