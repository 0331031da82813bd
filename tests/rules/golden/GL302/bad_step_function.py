import torch
import torch.nn as nn

model = nn.LSTM(input_size=64, hidden_size=128, num_layers=2, batch_first=True).cuda()
head = nn.Linear(128, 1).cuda()
params = list(model.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
criterion = nn.BCEWithLogitsLoss()


def train_step(seq, target):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        out, _ = model(seq)
        loss = criterion(head(out[:, -1]), target)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: GL302
    scaler.update()
    return loss.detach()


for epoch in range(20):
    for seq, target in loader:
        train_step(seq.cuda(), target.cuda())
