from apex.optimizers import FP16_Optimizer, FusedAdam


def train(model, loader, lr, max_norm):
    """The loss-scaling optimizer clips its fp32 master gradients itself, after unscaling them."""
    optimizer = FP16_Optimizer(FusedAdam(model.parameters(), lr=lr), dynamic_loss_scale=True)
    for batch in loader:
        loss = model(**batch).loss
        optimizer.zero_grad()
        optimizer.backward(loss)
        optimizer.clip_master_grads(max_norm)
        optimizer.step()


class Trainer:
    """fairseq's shape: the fp16 optimizer's backward scales, its own clip_grad_norm unscales
    first, then it steps."""

    def __init__(self, model, optimizer, clip_norm):
        self.model = model
        self.optimizer = optimizer
        self.clip_norm = clip_norm

    def train_step(self, samples):
        self.optimizer.zero_grad()
        for sample in samples:
            loss = self.model(**sample).loss
            self.optimizer.backward(loss)
        self.optimizer.clip_grad_norm(self.clip_norm)
        self.optimizer.step()


def main(model, samples, lr, clip_norm):
    trainer = Trainer(model, FP16_Optimizer(FusedAdam(model.parameters(), lr=lr)), clip_norm)
    for batch in samples:
        trainer.train_step(batch)
