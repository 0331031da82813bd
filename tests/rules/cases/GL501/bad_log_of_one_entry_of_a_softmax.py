import torch
import torch.nn.functional as F


def listwise_loss(positive_scores, negative_scores):
    """One positive against the sampled negatives: the log of the positive's share."""
    total = 0
    for positive in positive_scores:
        candidates = torch.cat((positive.unsqueeze(0), negative_scores), dim=0)
        total -= torch.log(F.softmax(candidates - candidates.max(), dim=0)[0])  # expect: GL501
    return total / len(positive_scores)


def train(user_encoder, news_encoder, loader, optimizer):
    for clicked, positives, negatives in loader:
        user = user_encoder(clicked)
        loss = listwise_loss(news_encoder(positives) @ user, news_encoder(negatives) @ user)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
