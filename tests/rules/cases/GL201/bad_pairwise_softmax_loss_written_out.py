"""A re-ranker scores positive/negative pairs and writes its pairwise loss out by hand (`1 -
softmax(scores)[:, 0]`, averaged); it backpropagates each small micro-batch as is and steps when
the count of pairs reaches the batch size."""
import torch

BATCH_SIZE = 16
GRAD_ACC_SIZE = 2


def train_iteration(model, optimizer, pairs):
    total = 0
    model.train()
    for record in pairs.iter_batches(GRAD_ACC_SIZE):
        scores = model(record["query_tok"], record["doc_tok"])
        count = len(record["query_id"]) // 2
        scores = scores.reshape(count, 2)
        loss = torch.mean(1.0 - scores.softmax(dim=1)[:, 0])
        loss.backward()  # expect: GL201
        total += count
        if total % BATCH_SIZE == 0:
            optimizer.step()
            optimizer.zero_grad()
