import torch
from tqdm import tqdm

optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
for epoch in range(num_epochs):
    for it, batch in enumerate(tqdm(loader, desc=f"epoch {epoch}"), 1):
        loss = model(batch) / grad_accum
        loss.backward()
        if it % grad_accum == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
