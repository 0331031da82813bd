"""A schema-item classifier: the loss helper sums one focal loss per example and divides by the
number of examples its caller passes (`len(labels)`): the mean over this micro-batch, no division
by the window of `gradient_descent_step` micro-batches."""
import torch
import torch.nn.functional as F


class ClassifierLoss:
    def __init__(self, gamma=2.0):
        self.gamma = gamma

    def focal(self, logits, labels):
        prob = F.softmax(logits, dim=-1)
        return F.nll_loss(((1 - prob) ** self.gamma) * torch.log(prob + 1e-8), labels)

    def batch_loss(self, batch_logits, batch_labels, batch_size):
        loss = 0
        for logits, labels in zip(batch_logits, batch_labels):
            loss += self.focal(logits, labels)
        return loss / batch_size

    def compute_loss(self, table_logits, table_labels, column_logits, column_labels):
        batch_size = len(table_labels)
        return self.batch_loss(table_logits, table_labels, batch_size) + self.batch_loss(column_logits, column_labels, batch_size)


def train(model, loader, optimizer, gradient_descent_step=4, epochs=10):
    criterion = ClassifierLoss()
    train_step = 0
    for epoch in range(epochs):
        for batch in loader:
            train_step += 1
            outputs = model(batch["input_ids"], batch["attention_mask"])
            loss = criterion.compute_loss(outputs["tables"], batch["table_labels"], outputs["columns"], batch["column_labels"])
            (loss / gradient_descent_step).backward()  # expect: GL201
            if train_step % gradient_descent_step == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
