import torch
from tqdm import tqdm

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(epochs):
    for step, batch in tqdm(enumerate(train_loader), total=len(train_loader), desc="Steps"):
        loss = model(batch) / n_gradient_accumulation_steps
        loss.backward()
        if (step + 1) % n_gradient_accumulation_steps == 0 or step + 1 == len(train_loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
