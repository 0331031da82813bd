"""A medical-abbreviation trainer keeping its own micro-batch count as a float (`count = 0.`,
`count += 1` at the end of the body), set back every epoch; the step waits for `count %
accum_num == 0` and nothing flushes the epoch's partial window."""

import torch


def train_loop(net, optimizer, criterion, train_loader, epochs, accum_num, clip, device):
    for epoch in range(epochs):
        net.train()
        count = 0.
        running_loss = 0.0
        for inputs, labels in train_loader:
            if count > 1 and (count - 1) % accum_num == 0:
                optimizer.zero_grad()
            outputs = net(inputs.to(device))
            loss = criterion(outputs, labels.to(device)) / accum_num
            loss.backward()
            if count > 0 and count % accum_num == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
                optimizer.step()
            running_loss += loss.item()
            count += 1
