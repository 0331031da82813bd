"""One trajectory per loader item, `batch_size` items per update: the gradients are cleared
where `cnt % batch_size == 0` and stepped where `cnt % batch_size + 1 == batch_size`, the
window's last item; each item's loss is backpropagated undivided, and the epoch's last partial
window is cleared at the next epoch's first item."""
import torch


def train(epoch, model, optimizer, loader_train, args):
    model.train()
    loss_batch = 0.0
    for cnt, batch in enumerate(loader_train):
        if cnt % args.batch_size == 0:
            optimizer.zero_grad()
        obs, target = [t.cuda() for t in batch]
        loss = torch.nn.functional.mse_loss(model(obs), target)
        loss.backward()  # expect: GL201
        loss_batch += loss.item()
        if cnt % args.batch_size + 1 == args.batch_size:  # expect: GL205
            if args.clip_grad is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            optimizer.step()
    return loss_batch / len(loader_train)
