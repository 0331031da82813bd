import torch
import torch.nn.functional as F

from gnn import GraphSAGE
from data import neighbor_loader


def train_step(model, optimizer, batch, accum):
    optimizer.zero_grad()  # expect: GL202
    out = model(batch.x, batch.edge_index)[: batch.batch_size]
    loss = F.cross_entropy(out, batch.y[: batch.batch_size]) / accum
    loss.backward()
    return float(loss) * accum


def main(accum=4, epochs=50):
    model = GraphSAGE(in_channels=128, hidden_channels=256, out_channels=47, num_layers=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = neighbor_loader("ogbn-products", num_neighbors=[15, 10, 5], batch_size=1024)
    for epoch in range(epochs):
        total = 0.0
        for i, batch in enumerate(loader):
            total += train_step(model, optimizer, batch, accum)
            if (i + 1) % accum == 0 or i + 1 == len(loader):  # expect: GL205
                optimizer.step()
        print(f"epoch {epoch}: {total / len(loader):.4f}")


if __name__ == "__main__":
    main()
