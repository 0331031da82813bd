import deepspeed
import torch


class DSTrainer:
    def __init__(self, model, ds_config, train_set):
        self.engine, self.optimizer, self.loader, _ = deepspeed.initialize(
            model=model, model_parameters=[p for p in model.parameters() if p.requires_grad],
            training_data=train_set, config=ds_config,
        )
        self.accum = ds_config["gradient_accumulation_steps"]

    def train_epoch(self, epoch):
        self.engine.train()
        for step, batch in enumerate(self.loader):
            batch = {k: v.to(self.engine.device) for k, v in batch.items()}
            loss = self.engine(**batch).loss
            self.engine.backward(loss)
            self.engine.step()
            if (step + 1) % self.accum == 0 and self.engine.global_rank == 0:
                print(f"epoch {epoch} update {self.engine.global_steps}: {loss.item():.4f}")

    def save(self, path):
        self.engine.save_checkpoint(path)
        torch.cuda.synchronize()
