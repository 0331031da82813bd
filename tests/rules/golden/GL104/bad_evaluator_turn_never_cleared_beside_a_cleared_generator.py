import torch
from torch import optim


def train(generator, evaluator, dataloader, epochs, device):
    """A captioning GAN in turns: the generator's pass clears its optimizer every batch, the
    evaluator's pass never clears its own (a separate optimizer over separate parameters)."""
    evaluator_optimizer = optim.Adam(evaluator.parameters(), lr=1e-4, weight_decay=1e-5)
    generator_optimizer = optim.Adam(generator.parameters(), lr=1e-4, weight_decay=1e-5)
    for epoch in range(epochs):
        generator.train()
        evaluator.eval()
        for images, captions in dataloader:
            generator_optimizer.zero_grad()
            loss = -evaluator(images.to(device), generator.sample(images.to(device))).mean()
            loss.backward()
            generator_optimizer.step()
        generator.eval()
        evaluator.train()
        for images, captions in dataloader:
            real = evaluator(images.to(device), captions.to(device))
            fake = evaluator(images.to(device), generator.sample(images.to(device)).detach())
            loss = torch.nn.functional.softplus(fake - real).mean()
            loss.backward()
            evaluator_optimizer.step()  # expect: GL104
            evaluator_optimizer.zero_grad()
