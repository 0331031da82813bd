"""A genomics language model's step: the window's end steps, every other micro-batch runs its
backward under `no_sync()` and continues, so the scheduler after the `if`/`else` runs only on
the iterations that stepped."""
import torch


def model_train(model, optimizer, dataloader, scaler, grad_accum_itr=1, scheduler=None):
    model.train()
    itr_idx = 0

    def run_fwd_bwd(inputs):
        with torch.autocast("cuda", dtype=torch.float16):
            logits, loss = model(inputs)
            loss = loss / grad_accum_itr
        scaler.scale(loss).backward()
        return logits, loss

    while True:
        for inputs in dataloader:
            itr_idx += 1
            if itr_idx % grad_accum_itr == 0:
                logits, loss = run_fwd_bwd(inputs)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            else:
                with model.no_sync():
                    logits, loss = run_fwd_bwd(inputs)
                continue
            if scheduler is not None:
                scheduler.step()
