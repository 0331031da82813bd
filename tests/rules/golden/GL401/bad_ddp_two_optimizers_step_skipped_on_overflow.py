"""A retrieval-augmented reader: the reader's and (when trained) the retriever's optimizers step
together at the window's end, unless the gradient statistics computed after the backward say the
window overflowed. No fix: the boundary test reads a value computed after the backward."""
import torch


def grad_stats(model):
    norms = [p.grad.norm() for p in model.parameters() if p.grad is not None]
    return {"skip_example": any(not torch.isfinite(n) for n in norms)}


def train(model, loader, optimizer, retr_optimizer, opt):
    step = 0
    for batch in loader:
        step += 1
        reader_loss, retriever_loss = model(batch["query"], batch["target"])
        train_loss = reader_loss + retriever_loss if opt.train_retriever else reader_loss
        (train_loss / opt.accumulation_steps).backward()  # expect: GL401
        stats = grad_stats(model)
        if stats["skip_example"]:
            model.zero_grad()
        if (step % opt.accumulation_steps == 0 or step == len(loader)) and not stats["skip_example"]:  # expect: GL205
            torch.nn.utils.clip_grad_norm_(model.parameters(), opt.clip)
            optimizer.step()
            if opt.train_retriever:
                retr_optimizer.step()
            model.zero_grad()


def main(opt, reader, loader):
    model = torch.nn.parallel.DistributedDataParallel(reader, device_ids=[opt.local_rank], find_unused_parameters=True)
    optimizer = torch.optim.AdamW(model.module.reader.parameters(), lr=opt.lr)
    retr_optimizer = torch.optim.AdamW(model.module.retriever.parameters(), lr=opt.retriever_lr)
    train(model, loader, optimizer, retr_optimizer, opt)
