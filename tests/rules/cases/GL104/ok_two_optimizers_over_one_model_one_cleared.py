import torch
from torch import optim


def train(generator, evaluator, dataloader, epochs, device):
    """Two optimizers over the parameters of one model (a head fine-tuned at its own rate,
    then the whole): clearing the whole model's optimizer clears the head's gradients too."""
    evaluator_optimizer = optim.Adam(evaluator.parameters(), lr=1e-4, weight_decay=1e-5)
    generator_optimizer = optim.Adam(evaluator.parameters(), lr=1e-5)
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
            evaluator_optimizer.step()
            generator_optimizer.zero_grad()
