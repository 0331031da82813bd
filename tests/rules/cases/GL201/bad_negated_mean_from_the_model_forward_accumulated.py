"""A CRF tagger's forward returns the negated mean log-likelihood (`-1 * ll`): a sign, not a
division by the window, which the loop accumulates undivided."""
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, encoder, crf, hidden, num_tags):
        super().__init__()
        self.encoder, self.crf, self.fc = encoder, crf, nn.Linear(hidden, num_tags)

    def forward(self, tokens, mask, tags):
        logits = self.fc(self.encoder(tokens, attention_mask=mask)[0])
        loglikelihood = self.crf(logits, tags, mask).mean()
        loss = -1 * loglikelihood
        return loss


def train(encoder, crf, data, args):
    model = Tagger(encoder, crf, args.hidden, args.num_tags)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    batches_processed = 0
    for step in range(args.steps):
        tokens, mask, tags = data.next_batch(args.batch_size)
        batches_processed += 1
        loss = model(tokens, mask, tags)
        loss = loss.mean()
        loss.backward()  # expect: GL201
        if batches_processed % args.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
