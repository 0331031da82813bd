import torch
import torch.nn.functional as F


class MixedPrecisionHelper:
    """Clears, backpropagates and applies the updates of a model trained in bf16 or fp32."""

    def __init__(self, model, use_bf16=False):
        self.model = model
        self.use_bf16 = use_bf16
        self.params = list(model.parameters())

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def backward(self, loss):
        if self.use_bf16:
            loss.float().backward()
        else:
            loss.backward()

    def optimize(self, opt):
        torch.nn.utils.clip_grad_norm_(self.params, 1.0)
        opt.step()


class ClassifierTrainLoop:
    def __init__(self, model, data, batch_size, microbatch, lr=3e-4):
        self.model = model
        self.data = data
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.helper = MixedPrecisionHelper(model)
        self.opt = torch.optim.AdamW(self.helper.params, lr=lr)

    def forward_backward(self, batch, labels):
        self.helper.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            loss = F.cross_entropy(self.model(micro), labels[i : i + self.microbatch])
            self.helper.backward(loss)  # expect: GL201

    def run(self, steps):
        for step in range(steps):
            batch, labels = next(self.data)
            self.forward_backward(batch, labels)
            self.helper.optimize(self.opt)
