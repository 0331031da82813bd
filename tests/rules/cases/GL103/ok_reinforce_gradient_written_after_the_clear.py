"""Architecture search with REINFORCE: each sampled path's log-probability gradient is kept aside,
then the architecture gradient is cleared and written by hand from the kept ones (weighted by
each path's advantage) before the architecture optimizer steps."""
import torch


def rl_update_step(net, arch_optimizer, valid_loader, calculate_reward, samples=10, baseline_decay=0.99, state=None):
    grad_buffer, reward_buffer = [], []
    for _ in range(samples):
        net.reset_binary_gates()
        images, labels = next(valid_loader)
        with torch.no_grad():
            accuracy = (net(images).argmax(1) == labels).float().mean().item()
        reward = calculate_reward(accuracy, net.expected_latency())
        log_prob = 0
        for m in net.mixed_ops:
            if m.alpha.grad is not None:
                m.alpha.grad.data.zero_()
            log_prob = log_prob + m.log_prob
        (-log_prob).backward()
        grad_buffer.append([m.alpha.grad.data.clone() for m in net.mixed_ops])
        reward_buffer.append(reward)
    avg_reward = sum(reward_buffer) / samples
    state["baseline"] = avg_reward if state.get("baseline") is None else state["baseline"] + (1 - baseline_decay) * (avg_reward - state["baseline"])
    for idx, m in enumerate(net.mixed_ops):
        m.alpha.grad.data.zero_()
        for j in range(samples):
            m.alpha.grad.data += (reward_buffer[j] - state["baseline"]) * grad_buffer[j][idx]
        m.alpha.grad.data /= samples
    arch_optimizer.step()
    return reward_buffer
