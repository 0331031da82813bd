import torch.nn.functional as F

for x, y in loader:
    output = F.log_softmax(model(x), dim=1)
    loss = F.nll_loss(output, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
