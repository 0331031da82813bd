"""The buffer holds a whole rollout, not one window: its last partial window never steps."""


class GRPOTrainer:
    def __init__(self, model, optimizer, args):
        self.model, self.optimizer, self.args = model, optimizer, args
        self.input_buffer = [None] * self.args.rollout_size

    def train_step(self, inputs, step):
        loss = self.compute_loss(inputs) / self.args.gradient_accumulation_steps
        loss.backward()
        if (step + 1) % self.args.gradient_accumulation_steps == 0:  # expect: GL205
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, loader):
        for idx, batch in enumerate(loader):
            self.input_buffer[idx % self.args.rollout_size] = self.generate(batch)
            if (idx + 1) % self.args.rollout_size == 0:
                for step, inputs in enumerate(self.input_buffer):
                    self.train_step(inputs, step)

    def compute_loss(self, inputs):
        return self.model(**inputs).loss

    def generate(self, batch):
        return {"input_ids": batch["prompt_ids"]}
