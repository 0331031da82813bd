"""A script that imports a model class and rebinds its name to the instance it builds
(`po_model = po_model(...)`), then calls it: the name's value is built by a call of itself."""
import torch

from model import po_model, s_model

s_m = s_model(128, 64)
po_model = po_model(128, 64, 49)
optimizer = torch.optim.Adam(list(s_m.parameters()) + list(po_model.parameters()), lr=1e-3)
for epoch in range(10):
    for t, k1, k2, o1, o2 in loader:
        ps_1, ps_2, t_enc, t_max = s_m(t)
        po_1, po_2 = po_model(t_enc, t_max, k1, k2)
        loss = criterion(ps_1, ps_2, po_1, po_2, o1, o2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
