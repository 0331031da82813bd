"""A text-to-SQL trainer resumed mid-epoch skips batches until the samples it counts reach the
start position (`cnt += len(batch)`, `if cnt < st_pos: continue`): that skip is no window; the
window is `iB % accumulate_gradients`, and the loss is not divided by it."""
import torch


def train(model, opt, train_loader, accumulate_gradients=4, st_pos=0):
    model.train()
    cnt = 0
    for iB, batch in enumerate(train_loader):
        cnt += len(batch)
        if cnt < st_pos:
            continue
        logits = model(batch["input_ids"])
        loss = torch.nn.functional.cross_entropy(logits, batch["labels"])
        if iB % accumulate_gradients == 0:
            opt.zero_grad()
            (loss / accumulate_gradients).backward()  # expect: GL201
        elif iB % accumulate_gradients == accumulate_gradients - 1:  # expect: GL205
            (loss / accumulate_gradients).backward()  # expect: GL201
            opt.step()
        else:
            (loss / accumulate_gradients).backward()  # expect: GL201
