"""Truncated backpropagation through time without accumulation (segments backpropagated, one
step per batch), and the accumulating variant that divides each segment's loss by the window."""
import torch


def train_tbptt(model, opt, loader, segment):
    for x, y in loader:
        model.reset_memory()
        for start in range(0, x.shape[1], segment):
            loss = model(x[:, start : start + segment], y[:, start : start + segment])
            loss.backward()
        opt.step()
        opt.zero_grad()


def train_xl(model, opt, get_batch, iterations, acc_steps, sequence_length):
    for itr in range(iterations):
        for microstep_idx in range(acc_steps):
            x, y = get_batch()
            model.clear_state()
            for idx in range(0, x.shape[1], sequence_length):
                loss = model(x[:, idx : idx + sequence_length], y[:, idx : idx + sequence_length]) / acc_steps
                loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
