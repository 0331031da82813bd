"""Report-generation trainer: every EVALUATE_EVERY micro-batches (a counter the evaluation
branch sets back to 0) and at the epoch's end it evaluates, then clears the gradients: a clear
once per evaluation period, not on every micro-batch of the window."""
import torch

ACCUMULATION_STEPS = 4
EVALUATE_EVERY = 2400


def train_model(model, train_dl, val_dl, optimizer, scaler, lr_scheduler, epochs, evaluate_model, run_params):
    for epoch in range(epochs):
        for num_batch, batch in enumerate(train_dl):
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                total_loss = model(**batch) / ACCUMULATION_STEPS
            scaler.scale(total_loss).backward()
            if (num_batch + 1) % ACCUMULATION_STEPS == 0 or num_batch + 1 == len(train_dl):
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            run_params["steps_taken"] += 1
            if run_params["steps_taken"] >= EVALUATE_EVERY or num_batch + 1 == len(train_dl):
                evaluate_model(model, val_dl, lr_scheduler, run_params)
                model.train()
                run_params["steps_taken"] = 0
                optimizer.zero_grad()
