import torch.nn as nn

criterion = nn.CrossEntropyLoss()
for epoch in range(epochs):
    running_loss = 0.0
    for i, (inputs, labels) in enumerate(trainloader):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss  # expect: GL601
    print(f"[{epoch + 1}] loss: {running_loss / len(trainloader):.3f}")
