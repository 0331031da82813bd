import random

import torch


def train(model, pieces, epochs=5, batch_size=8, gradient_accumulation=4, lr=1.5e-4, device="cuda"):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for epoch in range(epochs):
        for piece in pieces:
            samples = [piece[i : i + 1024] for i in range(0, len(piece) - 1024, 768)]
            random.shuffle(samples)
            for step in range(len(samples) // batch_size):
                batch = torch.tensor(samples[step * batch_size : (step + 1) * batch_size]).long().to(device)
                loss = model(input_ids=batch, labels=batch).loss / gradient_accumulation
                loss.backward()
                if (step + 1) % gradient_accumulation == 0 or step + 1 == len(samples) // batch_size:  # expect: GL205
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL203
                    optimizer.step()
                    optimizer.zero_grad()
