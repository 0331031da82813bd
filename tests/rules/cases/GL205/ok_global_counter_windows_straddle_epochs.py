import torch


def train_sft(model, train_loader, optimizer, config, device):
    """The step counter runs on across epochs and nothing clears the gradients between them: a
    window started at an epoch's end is finished in the next one."""
    global_step = 0
    optimizer.zero_grad(set_to_none=True)
    for epoch in range(config.epochs):
        model.train()
        for batch in train_loader:
            outputs = model(input_ids=batch["input_ids"].to(device), labels=batch["labels"].to(device))
            loss = outputs.loss / config.grad_accum_steps
            loss.backward()
            global_step += 1
            if global_step % config.grad_accum_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)

