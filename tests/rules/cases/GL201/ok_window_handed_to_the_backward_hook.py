import torch
from tqdm import tqdm


class SequenceClassificationTask:
    """A toolkit's task: `fit` hands its backward hook the window by name, which divides by it."""

    def __init__(self, module, optimizer, n_gpu=1):
        self.module, self.optimizer, self.n_gpu = module, optimizer, n_gpu

    def fit(self, train_generator, epochs=1, gradient_accumulation_steps=1, **kwargs):
        for epoch in range(epochs):
            for step, inputs in enumerate(tqdm(train_generator)):
                outputs = self.module(**inputs)
                loss = outputs.loss
                loss = self._on_backward(inputs, outputs, loss, gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
                if (step + 1) % gradient_accumulation_steps == 0 or step + 1 == len(train_generator):
                    self._on_optimize(**kwargs)

    def _on_backward(self, inputs, outputs, loss, gradient_accumulation_steps=1, **kwargs):
        if self.n_gpu > 1:
            loss = loss.mean()
        if gradient_accumulation_steps > 1:
            loss = loss / gradient_accumulation_steps
        loss.backward()
        return loss

    def _on_optimize(self, grad_clip=None, **kwargs):
        if grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(self.module.parameters(), grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad()

