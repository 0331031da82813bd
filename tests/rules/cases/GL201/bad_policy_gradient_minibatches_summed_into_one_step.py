"""On-policy distillation written by hand: the rollout is cut into mini-batches, each one's
advantage-weighted token mean is backpropagated, and one clip and one step follow the loop.
The token mean is this mini-batch's, so the step applies the sum over `num_batches` of them."""
import torch


def train(policy, teacher, opt, rollouts, mini_bs, max_grad_norm, prompt_len):
    for sequence_ids, seq_mask in rollouts:
        opt.zero_grad()
        num_batches = sequence_ids.size(0) // mini_bs
        for mb_idx in range(num_batches):
            idx = slice(mb_idx * mini_bs, (mb_idx + 1) * mini_bs)
            log_probs = policy(sequence_ids[idx]).log_softmax(-1)
            with torch.no_grad():
                teacher_log_probs = teacher(sequence_ids[idx]).log_softmax(-1)
            mask = seq_mask[idx][:, prompt_len:]
            adv = -(log_probs - teacher_log_probs)
            reverse_kl = -log_probs * adv.detach() * mask
            mean_reverse_kl = reverse_kl.sum() / mask.sum().item()
            mean_reverse_kl.backward()  # expect: GL201
        torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
        opt.step()
