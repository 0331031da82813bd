"""The same TGN-style script with a decoder that returns logits: the with-logits criterion is
given what it expects."""
import torch
import torch.nn as nn


class LinkPredictor(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.lin_src = nn.Linear(in_channels, in_channels)
        self.lin_dst = nn.Linear(in_channels, in_channels)
        self.lin_final = nn.Linear(in_channels, 1)

    def forward(self, z_src, z_dst):
        h = self.lin_src(z_src) + self.lin_dst(z_dst)
        return self.lin_final(h.relu())


def train(loader, neighbor_loader):
    for module in model.values():
        module.train()
    for batch in loader:
        optimizer.zero_grad()
        n_id = batch.n_id
        z, last_update = model["memory"](n_id)
        z = model["gnn"](z, last_update, neighbor_loader(n_id))
        pos_out = model["link_pred"](z[batch.src], z[batch.dst])
        neg_out = model["link_pred"](z[batch.src], z[batch.neg_dst])
        loss = criterion(pos_out, torch.ones_like(pos_out))
        loss += criterion(neg_out, torch.zeros_like(neg_out))
        loss.backward()
        optimizer.step()


memory = nn.Embedding(10000, 100)
gnn = nn.Linear(100, 100)
link_pred = LinkPredictor(in_channels=100)
model = {"memory": memory, "gnn": gnn, "link_pred": link_pred}
optimizer = torch.optim.Adam(set(memory.parameters()) | set(gnn.parameters()) | set(link_pred.parameters()), lr=1e-4)
criterion = torch.nn.BCEWithLogitsLoss()
