import torch


def train_step(model, optimizer, batch):
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for batch in loader:
        optimizer.zero_grad()
        train_step(model, optimizer, batch)
