import torch
import torch.nn.functional as F


def train(model, sentences, vocab, optimizer):
    """A word-level model: the sentence's words are one sequence, not micro-batches of a batch;
    its loss is the sum over the sequence by design."""
    for sentence in sentences:
        words = sentence.split(" ")
        hidden = model.init_hidden()
        optimizer.zero_grad()
        for previous, word in zip(words, words[1:]):
            logits, hidden = model(torch.tensor([vocab[previous]]), hidden)
            loss = F.cross_entropy(logits, torch.tensor([vocab[word]]))
            loss.backward(retain_graph=True)
        optimizer.step()
