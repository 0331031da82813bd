import torch
from torch_geometric.graphgym.loss import compute_loss


def subtoken_cross_entropy(pred_list, true):
    """The mean over subtoken positions: not a division by the accumulation window."""
    criterion = torch.nn.CrossEntropyLoss()
    loss = 0
    for i in range(len(pred_list)):
        loss += criterion(pred_list[i].float(), true["y_arr"][:, i])
    loss = loss / len(pred_list)
    return loss, pred_list


def train_epoch(cfg, loader, model, optimizer, batch_accumulation):
    model.train()
    optimizer.zero_grad()
    for it, batch in enumerate(loader):
        pred, true = model(batch)
        if cfg.dataset.name == "ogbg-code2":
            loss, pred_score = subtoken_cross_entropy(pred, true)
        else:
            loss, pred_score = compute_loss(pred, true)
        (loss / batch_accumulation).backward()  # expect: GL201
        if (it + 1) % batch_accumulation == 0 or it + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.clip_grad_norm_value)
            optimizer.step()
            optimizer.zero_grad()
