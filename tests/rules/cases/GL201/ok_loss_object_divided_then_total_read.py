import torch


class LossWithIntermediateLosses:
    def __init__(self, **kwargs):
        self.loss_total = sum(kwargs.values())
        self.intermediate_losses = {k: v.item() for k, v in kwargs.items()}

    def __truediv__(self, value):
        self.intermediate_losses = {k: v / value for k, v in self.intermediate_losses.items()}
        self.loss_total = self.loss_total / value
        return self


def train_component(component, dataset, optimizer, steps, grad_acc_steps, max_grad_norm):
    """The loss object divides its terms; the total read off it is already divided."""
    for _ in range(steps):
        optimizer.zero_grad()
        for _ in range(grad_acc_steps):
            batch = dataset.sample_batch()
            losses = component.compute_loss(batch) / grad_acc_steps
            loss_total_step = losses.loss_total
            loss_total_step.backward()
        torch.nn.utils.clip_grad_norm_(component.parameters(), max_grad_norm)
        optimizer.step()
