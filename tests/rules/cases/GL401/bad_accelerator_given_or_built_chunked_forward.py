from accelerate import Accelerator


class PriorTrainer:
    """The accelerator is handed in or built here; the prepared model is DDP across processes."""

    def __init__(self, diffusion_prior, optimizer, accelerator=None, max_grad_norm=0.5, **accelerator_kwargs):
        if accelerator is None:
            accelerator = Accelerator(**accelerator_kwargs)
        self.accelerator = accelerator
        self.max_grad_norm = max_grad_norm
        self.diffusion_prior, self.optimizer = self.accelerator.prepare(diffusion_prior, optimizer)

    def update(self):
        self.accelerator.clip_grad_norm_(self.diffusion_prior.parameters(), self.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad()

    def train_step(self, chunks):
        total_loss = 0.0
        for chunk_size_frac, chunk in chunks:
            with self.accelerator.autocast():
                loss = self.diffusion_prior(**chunk) * chunk_size_frac
            total_loss += loss.item()
            self.accelerator.backward(loss)  # expect: GL401
        self.update()
        return total_loss
