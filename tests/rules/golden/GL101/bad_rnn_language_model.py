import torch
import torch.nn as nn

import data
from rnn_model import RNNModel

corpus = data.Corpus("./data/wikitext-2")
train_data = data.batchify(corpus.train, 20)
ntokens = len(corpus.dictionary)
bptt = 35
clip = 0.25

model = RNNModel("LSTM", ntokens, ninp=200, nhid=200, nlayers=2, dropout=0.2)
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=20.0)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


for epoch in range(1, 41):
    model.train()
    hidden = model.init_hidden(20)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        inputs, targets = data.get_batch(train_data, i, bptt)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(inputs, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)  # expect: GL101
        optimizer.step()
        if batch % 200 == 0:
            print(f"| epoch {epoch} | batch {batch} | loss {loss.item():.2f}")
