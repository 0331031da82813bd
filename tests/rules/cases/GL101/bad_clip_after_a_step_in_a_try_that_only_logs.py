"""The step sits in a `try` whose handler only logs; the clip after the whole `try` runs after
the step that succeeded, on gradients it already applied."""
import torch


def train_epoch(net, loader, optimizer, criterion, logger):
    net.train()
    for x, y in loader:
        loss = criterion(net(x), y)
        loss.backward()
        try:
            optimizer.step()
        except RuntimeError as error:
            logger.warning(f"step failed: {error}")
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)  # expect: GL101
        optimizer.zero_grad()
