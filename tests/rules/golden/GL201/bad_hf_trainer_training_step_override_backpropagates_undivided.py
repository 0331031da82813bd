"""An adversarial-weight-perturbation Trainer for a Kaggle text classifier: the override of
`training_step` backpropagates the clean and the perturbed loss itself, but drops the division
by the accumulation steps the stock method did, while the Trainer still steps once per window."""
import torch
from transformers import Trainer


class AWP:
    def __init__(self, model, eps=1e-2):
        self.model = model
        self.eps = eps
        self.backup = {}

    def perturb(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad and param.grad is not None and "embeddings" in name:
                self.backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0:
                    param.data.add_(self.eps * param.grad / norm)

    def restore(self):
        for name, param in self.model.named_parameters():
            if name in self.backup:
                param.data = self.backup[name]
        self.backup = {}


class AWPTrainer(Trainer):
    def __init__(self, *args, awp_start_epoch=1.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.awp = AWP(self.model)
        self.awp_start_epoch = awp_start_epoch

    def training_step(self, model, inputs):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.autocast_smart_context_manager():
            loss = self.compute_loss(model, inputs)
        if self.args.n_gpu > 1:
            loss = loss.mean()
        if self.use_amp:
            self.scaler.scale(loss / self.args.gradient_accumulation_steps).backward()  # expect: GL201
        else:
            (loss / self.args.gradient_accumulation_steps).backward()  # expect: GL201
        if self.state.epoch >= self.awp_start_epoch:
            self.awp.perturb()
            with self.autocast_smart_context_manager():
                adversarial_loss = self.compute_loss(model, inputs)
            (adversarial_loss / self.args.gradient_accumulation_steps).backward()  # expect: GL201
            self.awp.restore()
        return loss.detach() / self.args.gradient_accumulation_steps
