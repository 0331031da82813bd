"""GRPO from scratch: experiences are gathered into a buffer of exactly one window, and each
training round runs over the whole buffer, so the window always closes on its last element."""


class GRPOTrainer:
    def __init__(self, model, optimizer, args):
        self.model, self.optimizer, self.args = model, optimizer, args
        self.input_buffer = [None] * self.args.gradient_accumulation_steps

    def train_step(self, inputs, step):
        loss = self.compute_loss(inputs) / self.args.gradient_accumulation_steps
        loss.backward()
        if (step + 1) % self.args.gradient_accumulation_steps == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, loader):
        for idx, batch in enumerate(loader):
            self.input_buffer[idx % self.args.gradient_accumulation_steps] = self.generate(batch)
            if (idx + 1) % self.args.gradient_accumulation_steps == 0:
                for _ in range(self.args.num_iterations):
                    for step, inputs in enumerate(self.input_buffer):
                        self.train_step(inputs, step)

    def compute_loss(self, inputs):
        return self.model(**inputs).loss

    def generate(self, batch):
        return {"input_ids": batch["prompt_ids"]}
