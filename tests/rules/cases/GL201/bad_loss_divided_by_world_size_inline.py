import torch
import torch.distributed as dist

from trainer.data import get_dataloader
from trainer.model import GPT


def train(model, dataloader, optimizer, grad_accum_steps, max_steps):
    world_size = dist.get_world_size() if dist.is_initialized() else 1
    model.train()
    for it, (x, y) in enumerate(dataloader):
        if it >= max_steps:
            break
        _, loss = model(x.cuda(), y.cuda())
        loss /= world_size
        loss.backward()  # expect: GL201
        if (it + 1) % grad_accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    model = GPT.from_pretrained("gpt2").cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
    train(model, get_dataloader("openwebtext", 12), optimizer, grad_accum_steps=40, max_steps=5000)
