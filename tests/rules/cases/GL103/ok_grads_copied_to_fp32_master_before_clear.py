import torch


def train(model, master, optimizer, loader, accumulation_steps):
    """fp32 master weights: the half-precision model's gradients are copied onto the master
    copy the optimizer owns, the model's own are cleared, the optimizer steps the master copy,
    and the model loads the updated weights back."""
    for index, batch in enumerate(loader):
        loss = model(**batch).loss / accumulation_steps
        loss.backward()
        if (index + 1) % accumulation_steps == 0 or index + 1 == len(loader):
            for half, full in zip(model.parameters(), master.parameters()):
                full.grad = half.grad.detach().float()
            model.zero_grad()
            optimizer.step()
            model.load_state_dict(master.state_dict())
            master.zero_grad()


def train_copy_in_place(model, master_params, optimizer, loader):
    for batch in loader:
        model(**batch).loss.backward()
        for half, full in zip(model.parameters(), master_params):
            full.grad.copy_(half.grad)
        model.zero_grad(set_to_none=True)
        optimizer.step()
        with torch.no_grad():
            for half, full in zip(model.parameters(), master_params):
                half.copy_(full)
        optimizer.zero_grad()
