"""A GRPO update over micro-batch slices of one batch: each slice's token-weighted loss is divided
by the token weight of the whole batch (summed over every process first), so the slices'
gradients add up to the batch's token mean; `* world_size` undoes DDP's average."""
import contextlib

import torch
import torch.distributed as dist


def reduce_float(value, device):
    tensor = torch.tensor(value, device=device)
    dist.all_reduce(tensor)
    return tensor.item()


class GRPOTrainer:
    def __init__(self, model, optimizer, scheduler, mbatch_size, kl_factor, n_ppo_step):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.mbatch_size = mbatch_size
        self.kl_factor = kl_factor
        self.n_ppo_step = n_ppo_step

    def train(self, tokens, weight, advantages, old_log_probs):
        batch_size = tokens.shape[1]
        all_weight = reduce_float(weight.sum().item(), tokens.device)
        for step in range(self.n_ppo_step):
            self.optimizer.zero_grad()
            for start in range(0, batch_size, self.mbatch_size):
                piece = slice(start, start + self.mbatch_size)
                last = start + self.mbatch_size >= batch_size
                with contextlib.nullcontext() if last else self.model.no_sync():
                    log_probs = self.model(tokens[:, piece]).log_softmax(-1).amax(-1)
                    ratio = torch.exp(log_probs - old_log_probs[:, piece])
                    reward_loss = torch.sum(-ratio * advantages[piece] * weight[:, piece])
                    kl_loss = torch.sum((ratio - torch.log(ratio) - 1) * weight[:, piece])
                    loss = (reward_loss + kl_loss * self.kl_factor) / all_weight * dist.get_world_size()
                    loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.scheduler.step()
