"""Each sentence's loss is weighted by its length and divided by the window's expected number of
tokens on every micro-batch, the one that steps and the others."""


def train(net, loader, optimizer, loss_func, epochs, accumulate_grad_steps=50, tokens_per_window=1000, device="cuda"):
    for epoch in range(epochs):
        for i, sentence in enumerate(loader):
            heads = sentence[2].to(device)
            sentence_len = sentence[3][0]
            loss = loss_func(net(sentence), heads) * sentence_len / tokens_per_window
            if (i + 1) % accumulate_grad_steps == 0 or i + 1 == len(loader):
                loss.backward()
                optimizer.step()
                net.zero_grad()
            else:
                loss.backward()
