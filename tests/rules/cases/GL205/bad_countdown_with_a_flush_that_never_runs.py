import torch
from torch import nn
from tqdm import tqdm


class MULT:
    """Counts each window down from `update_epochs`; the flush after the epoch tests for zero,
    but the count was set back as soon as it got there: it never runs."""

    def __init__(self, args):
        self.args = args

    def do_train(self, model, dataloader, optimizer):
        for epoch in range(self.args.epochs):
            model.train()
            left_epochs = self.args.update_epochs
            with tqdm(dataloader["train"]) as td:
                for batch_data in td:
                    if left_epochs == self.args.update_epochs:
                        optimizer.zero_grad()
                    left_epochs -= 1
                    outputs = model(batch_data["text"], batch_data["audio"], batch_data["vision"])
                    loss = nn.functional.l1_loss(outputs["M"], batch_data["labels"]) / self.args.update_epochs
                    loss.backward()
                    if not left_epochs:  # expect: GL205
                        nn.utils.clip_grad_value_(model.parameters(), self.args.grad_clip)
                        optimizer.step()
                        left_epochs = self.args.update_epochs
                if not left_epochs:
                    optimizer.step()
