"""A GRPO loop: the micro-batch helper backpropagates its loss and returns it with its metadata
in a tuple; the loop unpacks the loss and adds the tensor itself to the step's running total."""
import torch


def microbatch_train_step(policy_log_probs, advantages, accumulation_steps):
    loss = -(policy_log_probs * advantages).mean()
    loss = loss / accumulation_steps
    loss.backward()
    return loss, {"clip_fraction": 0.0}


def train(model, optimizer, batches, accumulation_steps, n_steps):
    step_loss = 0.0
    micro_step_count = 0
    for step in range(n_steps):
        for batch in batches:
            log_probs = model(batch["input_ids"]).log_softmax(-1)
            loss, metadata = microbatch_train_step(log_probs, batch["advantages"], accumulation_steps)
            step_loss += loss.item()  # expect: GL601
            micro_step_count += 1
            if micro_step_count % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                print(f"loss {step_loss}")
                step_loss = 0.0
