"""A DNA sequence classifier whose script imports the cuda module itself and reaches the AMP API
through it: reported, with no fix offered (no name of the module spells `torch`)."""
from torch import cuda
from torch.nn import CrossEntropyLoss

from genomics.data import kmer_loader
from genomics.model import DNABertClassifier


def train_by_sequence(model, optimizer, loader, epochs=5, device="cuda"):
    loss_fn = CrossEntropyLoss()
    scaler = cuda.amp.GradScaler()  # expect: GL306
    for epoch in range(epochs):
        model.train()
        for input_ids, attention_mask, labels in loader:
            optimizer.zero_grad()
            with cuda.amp.autocast():  # expect: GL306
                logits = model(input_ids.to(device), attention_mask.to(device))
                loss = loss_fn(logits, labels.to(device))
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            scaler.step(optimizer)
            scaler.update()
        print(f"epoch {epoch}: last loss {loss.item():.4f}, {cuda.memory_allocated() / 2**20:.0f} MiB")


if __name__ == "__main__":
    net = DNABertClassifier(num_labels=2).cuda()
    train_by_sequence(net, net.configure_optimizer(lr=2e-5), kmer_loader("train.csv", k=6))
