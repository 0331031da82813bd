"""A learning framework whose base class runs the loop and declares `loss` as an interface
(`return 0`); the one subclass computing it divides by the accumulation window, so the loop's
backward is of a divided loss."""

import torch


class LFramework(torch.nn.Module):
    def __init__(self, args):
        super().__init__()
        self.num_accumulation_steps = args.num_accumulation_steps
        self.optim = None

    def loss(self, formatted_batch):
        """
        Interface.
        """
        return 0

    def run_train(self, train_data, num_steps):
        self.optim.zero_grad()
        for step_id in range(num_steps):
            for batch_id in range(self.num_accumulation_steps):
                formatted_batch = train_data[step_id * self.num_accumulation_steps + batch_id]
                loss = self.loss(formatted_batch)
                loss.backward()
            self.optim.step()
            self.optim.zero_grad()


class EncoderDecoderLFramework(LFramework):
    def __init__(self, args, model):
        super().__init__(args)
        self.mdl = model
        self.optim = torch.optim.Adam(model.parameters(), lr=args.learning_rate)

    def loss(self, formatted_batch):
        outputs = self.mdl(formatted_batch["encoder_input"], formatted_batch["decoder_input"])
        loss = torch.nn.functional.cross_entropy(outputs, formatted_batch["target"])
        loss /= self.num_accumulation_steps
        return loss
