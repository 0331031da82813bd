import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR

from model import TextCNN
from data import imdb_loader

warmup = 1000
model = TextCNN(vocab_size=30000, embed_dim=300, num_classes=2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup))
criterion = nn.CrossEntropyLoss()
loader = imdb_loader(batch_size=64)

for epoch in range(10):
    for step, (tokens, labels) in enumerate(loader):
        # the learning rate for this update is set before the update is made
        scheduler.step()  # expect: GL106
        logits = model(tokens)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 3.0)
        optimizer.step()
        if step % 100 == 0:
            print(epoch, step, loss.item(), scheduler.get_last_lr())
