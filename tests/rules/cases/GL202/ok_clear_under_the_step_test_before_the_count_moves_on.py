"""The clear and the step are spelled with the same test, but the running count of micro-batches
moves on between them: the clear's test holds on the micro-batch after a step, the first of
the next window (the count carries across epochs)."""
import torch


def train_dpo(model, ref_model, loader, optimizer, scheduler, dpo_loss, config):
    grad_accum = config["batch_effective_size"] // config["batch_micro_size"]
    running_micro = 0
    for epoch in range(config["num_epochs"]):
        for micro_step, batch in enumerate(loader):
            if running_micro % grad_accum == 0:
                optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                with torch.no_grad():
                    ref_logits = ref_model(batch["input_ids"])
                logits = model(batch["input_ids"])
                loss = dpo_loss(logits, ref_logits, batch["labels"], batch["is_chosen"]) / grad_accum
            loss.backward()
            running_micro += 1
            if running_micro % grad_accum == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
