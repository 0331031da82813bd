import torch
import torch.nn as nn

model = nn.LSTM(128, 256, num_layers=2)
decoder = nn.Linear(256, 10000)
params = list(model.parameters()) + list(decoder.parameters())
optimizer = torch.optim.SGD(params, lr=20.0)
criterion = nn.CrossEntropyLoss()

for i, (data, targets) in enumerate(batches):
    hidden = None
    nn.utils.clip_grad_norm_(params, 0.25)  # expect: GL102
    output, hidden = model(data, hidden)
    loss = criterion(decoder(output).view(-1, 10000), targets.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
