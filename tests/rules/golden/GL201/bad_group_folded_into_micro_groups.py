import torch


class GRPO:
    """Each group of completions is folded into micro-groups (`reshape(n // m, m, ...)`) that are
    backpropagated one by one before a single step; each micro-group's loss is a masked mean, so
    the step applies the sum of the micro-groups' gradients."""

    def __init__(self, model, optimizer, micro_group_size=2, beta=0.04):
        self.model = model
        self.optimizer = optimizer
        self.micro_group_size = micro_group_size
        self.beta = beta

    def compute_loss(self, inputs, old_log_probs, advantage, loss_mask):
        log_probs = torch.log_softmax(self.model(inputs).logits, dim=-1).gather(-1, inputs.unsqueeze(-1)).squeeze(-1)
        ratio = torch.exp(log_probs - old_log_probs.detach())
        loss = -torch.min(ratio * advantage, torch.clamp(ratio, 0.8, 1.2) * advantage)
        loss = (loss * loss_mask).sum(dim=-1) / (loss_mask.sum(dim=-1) + 1e-6)
        return loss.mean()

    def train(self, groups):
        for inputs, old_log_probs, advantage, loss_mask in groups:
            m = self.micro_group_size
            g_inputs = inputs.reshape(inputs.shape[0] // m, m, *inputs.shape[1:]).cpu()
            g_old = old_log_probs.reshape(inputs.shape[0] // m, m, *old_log_probs.shape[1:]).cpu()
            g_adv = advantage.reshape(inputs.shape[0] // m, m, *advantage.shape[1:]).cpu()
            g_mask = loss_mask.reshape(inputs.shape[0] // m, m, *loss_mask.shape[1:]).cpu()
            for x, old, adv, mask in zip(g_inputs, g_old, g_adv, g_mask):
                loss = self.compute_loss(x.cuda(), old.cuda(), adv.cuda(), mask.cuda())
                (loss / len(g_inputs)).backward()  # expect: GL201
            self.optimizer.step()
            self.optimizer.zero_grad()
