import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss(label_smoothing=0.1)


def step(model, images, labels, optimizer):
    predictions = torch.softmax(model(images), dim=1)
    loss = criterion(predictions, labels)  # expect: GL502
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return predictions.detach()
