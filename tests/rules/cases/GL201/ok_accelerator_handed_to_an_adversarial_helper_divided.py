import torch
from accelerate import Accelerator


class FGM:
    """Adversarial training on the embeddings: perturb, backpropagate the adversarial loss
    through the accelerator it is handed, restore."""

    def __init__(self, model, accum, epsilon=1.0):
        self.model = model
        self.accum = accum
        self.epsilon = epsilon
        self.backup = {}

    def attack_backward(self, batch, accelerator):
        for name, param in self.model.named_parameters():
            if param.requires_grad and "word_embeddings" in name and param.grad is not None:
                self.backup[name] = param.data.clone()
                param.data.add_(self.epsilon * param.grad / (param.grad.norm() + 1e-8))
        adv_loss = self.model(**batch)[1]
        accelerator.backward(adv_loss / self.accum)
        for name, param in self.model.named_parameters():
            if name in self.backup:
                param.data = self.backup[name]
        self.backup = {}


def run_training(config, model, optimizer, scheduler, train_dl):
    """A plain Accelerator (no accumulation plugin): the loop divides the loss by the window
    it steps after."""
    accelerator = Accelerator(mixed_precision="fp16" if config["use_fp16"] else "no")
    model = model.to(accelerator.device)  # one process: only the optimizer and the data are prepared
    optimizer, train_dl = accelerator.prepare(optimizer, train_dl)
    grad_accumulation_steps = config["grad_accumulation"]
    fgm = FGM(model, grad_accumulation_steps)
    for epoch in range(config["num_epochs"]):
        model.train()
        for step, batch in enumerate(train_dl):
            logits, loss = model(**batch)
            accelerator.backward(loss / grad_accumulation_steps)
            fgm.attack_backward(batch, accelerator)
            if (step + 1) % grad_accumulation_steps == 0 or step + 1 == len(train_dl):
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
