import lightning as L
import torch
import torch.nn.functional as F

from model import TinyLlama
from data import packed_dataloader


def train(fabric, model, optimizer, dataloader, accumulate_grad_batches=4, max_norm=1.0):
    model.train()
    for iteration, (input_ids, targets) in enumerate(dataloader):
        is_accumulating = (iteration + 1) % accumulate_grad_batches != 0
        with fabric.no_backward_sync(model, enabled=is_accumulating):
            logits = model(input_ids)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)
            fabric.backward(loss / accumulate_grad_batches)
        if not is_accumulating:  # expect: GL205
            fabric.clip_gradients(model, optimizer, max_norm=max_norm)
            optimizer.step()
            optimizer.zero_grad()
        if iteration % 100 == 0:
            fabric.print(f"iter {iteration}: loss {loss.item():.4f}")


def main():
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy="ddp", precision="bf16-mixed")
    fabric.launch()
    model = TinyLlama.from_name("tiny_LLaMA_120M")
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    model, optimizer = fabric.setup(model, optimizer)
    dataloader = fabric.setup_dataloaders(packed_dataloader("slimpajama", block_size=2048, batch_size=8))
    train(fabric, model, optimizer, dataloader)


if __name__ == "__main__":
    main()
