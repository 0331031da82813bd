"""The same re-ranker weighs each micro-batch's pairwise loss by its share of the batch before
backward: the summed gradients are the batch's mean."""
import torch

BATCH_SIZE = 16
GRAD_ACC_SIZE = 2


def train_iteration(model, optimizer, pairs):
    total = 0
    for record in pairs.iter_batches(GRAD_ACC_SIZE):
        scores = model(record["query_tok"], record["doc_tok"])
        count = len(record["query_id"]) // 2
        loss = torch.mean(1.0 - scores.reshape(count, 2).softmax(dim=1)[:, 0]) * count / BATCH_SIZE
        loss.backward()
        total += count
        if total % BATCH_SIZE == 0:
            optimizer.step()
            optimizer.zero_grad()
