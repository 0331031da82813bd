"""Transformer-XL style recurrence under accumulation: each of `acc_steps` micro-batches is cut
into segments of the sequence, every segment's loss is backpropagated at once (the memory is
carried, the graph is not), and one step follows the window -- with no division by the window."""
import torch


def train_xl(model, opt, scheduler, get_batch, iterations, acc_steps, sequence_length, device):
    itr = 0
    model.train()
    while itr < iterations:
        for microstep_idx in range(acc_steps):
            x, y = get_batch(device)
            model.clear_state()
            for idx in range(0, x.shape[1], sequence_length):
                outputs = model(x[:, idx : idx + sequence_length], targets=y[:, idx : idx + sequence_length], use_cache=True)
                loss = outputs["loss"]
                (loss / acc_steps).backward()  # expect: GL201
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        scheduler.step()
        opt.zero_grad(set_to_none=True)
        itr += 1
