import contextlib
import ignite.distributed as idist
import torch
from ignite.engine import Engine, Events


def training(local_rank, config):
    model = idist.auto_model(config["build_model"]())
    optimizer = idist.auto_optim(torch.optim.AdamW(model.parameters(), lr=config["lr"]))
    loader = idist.auto_dataloader(config["dataset"], batch_size=config["batch_size"], shuffle=True)
    accumulation_steps = config["accumulation_steps"]

    def train_step(engine, batch):
        model.train()
        inputs, targets = batch[0].to(idist.device()), batch[1].to(idist.device())
        sync_context = contextlib.nullcontext() if engine.state.iteration % accumulation_steps == 0 else getattr(model, "no_sync", contextlib.nullcontext)()
        with sync_context:
            loss = torch.nn.functional.cross_entropy(model(inputs), targets) / accumulation_steps
            loss.backward()  # expect: GL401
        if engine.state.iteration % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        return loss.item()

    trainer = Engine(train_step)
    trainer.run(loader, max_epochs=config["epochs"])


if __name__ == "__main__":
    with idist.Parallel(backend="nccl") as parallel:
        parallel.run(training, {"lr": 1e-4, "batch_size": 32, "accumulation_steps": 4, "epochs": 3})
