import torch
import torch.nn.functional as F

from gnn import GraphSAGE
from data import neighbor_loader


def optimizer_step(model, optimizer, max_norm=1.0):
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    optimizer.zero_grad()


def main(accum=4, epochs=50):
    model = GraphSAGE(in_channels=128, hidden_channels=256, out_channels=47, num_layers=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = neighbor_loader("ogbn-products", num_neighbors=[15, 10, 5], batch_size=1024)
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            out = model(batch.x, batch.edge_index)[: batch.batch_size]
            loss = F.cross_entropy(out, batch.y[: batch.batch_size]) / accum
            loss.backward()
            if (i + 1) % accum == 0:  # expect: GL205
                optimizer_step(model, optimizer)


if __name__ == "__main__":
    main()
