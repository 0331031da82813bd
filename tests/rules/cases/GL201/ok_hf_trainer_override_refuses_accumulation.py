"""A gradient-cache retriever on transformers' Trainer: its `training_step` refuses accumulation
(`gradient_accumulation_steps > 1` raises), so every call steps; each chunk's surrogate is
backpropagated whole, as the cached gradients already hold the batch's loss."""
import torch
from transformers import Trainer


class GradCacheTrainer(Trainer):
    def training_step(self, model, inputs):
        if self.args.gradient_accumulation_steps > 1:
            raise ValueError("gradient caching replaces accumulation")
        model.train()
        chunks = self._prepare_inputs(inputs)["chunks"]
        with torch.no_grad():
            embeddings = torch.cat([model(**chunk).embeddings for chunk in chunks])
        embeddings.requires_grad_()
        loss = self.compute_loss(model, {"embeddings": embeddings})
        loss.backward()
        cached = embeddings.grad.split([len(chunk["input_ids"]) for chunk in chunks])
        for chunk, grad in zip(chunks, cached):
            surrogate = torch.dot(grad.flatten(), model(**chunk).embeddings.flatten())
            surrogate.backward()
        return loss.detach()
