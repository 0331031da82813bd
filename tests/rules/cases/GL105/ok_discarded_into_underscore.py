import time

import torch


def profile(module, x, runs=10):
    """Average forward and backward time of `module` on input `x`, in milliseconds."""
    x.requires_grad_(True)
    forward_ms, backward_ms = 0.0, 0.0
    for _ in range(runs):
        start = time.perf_counter()
        y = module(x)
        middle = time.perf_counter()
        try:
            _ = y.sum().backward()
            end = time.perf_counter()
        except RuntimeError:  # a module without trainable parameters
            end = float("nan")
        forward_ms += (middle - start) * 1000 / runs
        backward_ms += (end - middle) * 1000 / runs
    return forward_ms, backward_ms


if __name__ == "__main__":
    layer = torch.nn.Conv2d(3, 16, 3)
    print(profile(layer, torch.randn(8, 3, 64, 64)))
