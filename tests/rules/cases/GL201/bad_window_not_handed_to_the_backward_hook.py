import torch
from tqdm import tqdm


class SequenceClassificationTask:
    """A toolkit's task: `fit` takes the window by name and hands its hooks only **kwargs, so
    `_on_backward` never sees it and divides by its own default of 1."""

    def __init__(self, module, optimizer, n_gpu=1):
        self.module, self.optimizer, self.n_gpu = module, optimizer, n_gpu

    def fit(self, train_generator, epochs=1, gradient_accumulation_steps=1, **kwargs):
        for epoch in range(epochs):
            for step, inputs in enumerate(tqdm(train_generator)):
                outputs = self.module(**inputs)
                loss = outputs.loss
                loss = self._on_backward(inputs, outputs, loss, **kwargs)
                if (step + 1) % gradient_accumulation_steps == 0 or step + 1 == len(train_generator):
                    self._on_optimize(**kwargs)

    def _on_backward(self, inputs, outputs, loss, gradient_accumulation_steps=1, **kwargs):
        if self.n_gpu > 1:
            loss = loss.mean()
        if gradient_accumulation_steps > 1:
            loss = loss / gradient_accumulation_steps
        loss.backward()  # expect: GL201
        return loss

    def _on_optimize(self, grad_clip=None, **kwargs):
        if grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(self.module.parameters(), grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad()

