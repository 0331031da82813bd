import torch

optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for inputs, labels in trainloader:
    optimizer.zero_grad()
    loss = criterion(net(inputs), labels)
    grad: torch.Tensor = loss.backward()  # expect: GL105
    optimizer.step()
