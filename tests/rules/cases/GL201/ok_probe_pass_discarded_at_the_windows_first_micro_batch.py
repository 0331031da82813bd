"""A pretraining loop whose state object keeps the accumulation step modulo the window: every
`probe_freq` updates, on the window's first micro-batch (gradients still empty), a probe runs a
forward and backward on a smaller batch for statistics and clears what it made at once; the
training loss itself is divided by the window."""
import torch


def every_n_steps(train_state, freq, acc_step=None):
    test = train_state.step % freq == 0
    if acc_step is not None:
        test = test and (train_state.acc_step == acc_step)
    return test


def train(args, model, optimizer, scheduler, data_iterator, train_state, probe):
    while train_state.step < args.steps:
        train_state.acc_step += 1
        train_state.acc_step = train_state.acc_step % args.grad_acc_steps
        input_ids, labels = next(data_iterator)
        if args.probe_freq is not None and every_n_steps(train_state, args.probe_freq, acc_step=1 % args.grad_acc_steps):
            with probe:
                probe_loss = model(input_ids[: args.probe_bsz], labels[: args.probe_bsz])
                probe_loss.backward()
                optimizer.zero_grad()
        loss = model(input_ids, labels)
        loss = loss / args.grad_acc_steps
        loss.backward()
        if train_state.acc_step == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=args.clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            train_state.step += 1
