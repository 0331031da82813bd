"""First-order MAML for domain adaptation: every episode backpropagates the meta-loss and steps
the head's optimizer; every few episodes a validation pass runs the same inner loop, which
clears the gradients and clips before adapting fast weights. That clip runs after the step in
the same episode, but on gradients the helper cleared itself, not on those the step used (it
clips before any backward of its own: GL102, as in training)."""

import torch


class MAMLTrainer:
    def __init__(self, model, train_tasks, val_tasks, config):
        self.model = model
        self.train_tasks = train_tasks
        self.val_tasks = val_tasks
        self.config = config
        self.head_opt = torch.optim.Adam(model.head.parameters(), lr=config["outer_lr"])

    def inner_loop(self, support, query):
        self.model.zero_grad()
        fast_weights = list(self.model.head.parameters())
        support_loss = self.model.loss(support)
        grads = torch.autograd.grad(support_loss, fast_weights, create_graph=True)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config["clip"])  # expect: GL102
        fast_weights = [w - self.config["inner_lr"] * g for w, g in zip(fast_weights, grads)]
        return self.model.loss(query, head_weights=fast_weights)

    def outer_loop(self, tasks):
        meta_loss = 0.0
        for support, query in tasks:
            meta_loss = meta_loss + self.inner_loop(support, query)
        return meta_loss / len(tasks)

    def validate(self):
        losses = [self.outer_loop(tasks).item() for tasks in self.val_tasks]
        return sum(losses) / len(losses)

    def train(self):
        for episode in range(self.config["episodes"]):
            tasks = self.train_tasks.sample(self.config["n_tasks"])
            meta_loss = self.outer_loop(tasks)
            meta_loss.backward()
            self.head_opt.step()
            if episode % self.config["valid_freq"] == 0:
                print(f"episode {episode} val loss {self.validate():.3f}")
