import torch
import torch.nn as nn

import data
from rnn_model import RNNModel

corpus = data.Corpus("./data/wikitext-2")
train_data = data.batchify(corpus.train, 20)
ntokens = len(corpus.dictionary)
bptt, accum = 35, 4

model = RNNModel("GRU", ntokens, ninp=400, nhid=400, nlayers=2, dropout=0.3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(1, 41):
    model.train()
    hidden = model.init_hidden(20)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        inputs, targets = data.get_batch(train_data, i, bptt)
        hidden = hidden.detach()
        output, hidden = model(inputs, hidden)
        loss = criterion(output.view(-1, ntokens), targets) / accum
        loss.backward()
        if (batch + 1) % accum == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
            model.zero_grad()  # expect: GL202
