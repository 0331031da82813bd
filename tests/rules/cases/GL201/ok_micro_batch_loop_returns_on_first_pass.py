import torch


class TrainLoop:
    def __init__(self, model, diffusion, optimizer, microbatch):
        self.model, self.diffusion, self.optimizer, self.microbatch = model, diffusion, optimizer, microbatch

    def forward_backward(self, batch, cond):
        """Written as a micro-batch loop, but its body returns after the first slice."""
        self.optimizer.zero_grad()
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            t = torch.randint(0, 1000, (micro.shape[0],), device=micro.device)
            losses, sample = self.diffusion.training_losses(self.model, micro, t, cond=cond[i : i + self.microbatch])
            loss = losses["loss"].mean()
            loss.backward()
            return sample

    def run_step(self, batch, cond):
        sample = self.forward_backward(batch, cond)
        self.optimizer.step()
        return sample
