import torch
import torch.nn.functional as F


def train(model, loader, epochs=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0 ** 14)
    for epoch in range(epochs):
        for step, (tokens, targets) in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(tokens)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            loss = scaler.scale(loss)
            loss.backward()
            optimizer.step()  # expect: GL302
            optimizer.zero_grad()
