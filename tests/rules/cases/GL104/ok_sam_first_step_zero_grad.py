import torch

base_optimizer = torch.optim.SGD
optimizer = SAM(model.parameters(), base_optimizer, lr=0.1, momentum=0.9)
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.first_step(zero_grad=True)
    # second forward-backward at the perturbed weights; step() restores them and updates
    criterion(model(inputs), targets).backward()
    optimizer.step()
