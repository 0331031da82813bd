"""FreeLB adversarial training as a Trainer subclass: each micro-batch runs a few ascent steps on
an embedding perturbation, dividing the loss by the ascent steps and the accumulation steps; only
the perturbation's own gradient is cleared between ascents, the model's accumulate until the
Trainer steps."""
import torch
from transformers import Trainer


class FreeLBTrainer(Trainer):
    def __init__(self, *args, adv_steps=3, adv_lr=1e-1, adv_init_mag=2e-2, **kwargs):
        super().__init__(*args, **kwargs)
        self.adv_steps = adv_steps
        self.adv_lr = adv_lr
        self.adv_init_mag = adv_init_mag

    def training_step(self, model, inputs):
        model.train()
        inputs = self._prepare_inputs(inputs)
        input_ids = inputs.pop("input_ids")
        embeds_init = model.get_input_embeddings()(input_ids)
        delta = torch.zeros_like(embeds_init).uniform_(-self.adv_init_mag, self.adv_init_mag)
        total = 0.0
        for _ in range(self.adv_steps):
            delta.requires_grad_()
            inputs["inputs_embeds"] = delta + embeds_init
            loss = model(**inputs).loss
            loss = loss / self.adv_steps / self.args.gradient_accumulation_steps
            total += loss.item()
            loss.backward()
            step = delta.grad.detach()
            norm = torch.norm(step.view(step.size(0), -1), dim=1).view(-1, 1, 1).clamp(min=1e-8)
            delta = (delta + self.adv_lr * step / norm).detach()
            embeds_init = model.get_input_embeddings()(input_ids)
        return torch.tensor(total)
