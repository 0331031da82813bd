"""A dependency parser weighs each sentence's loss by its length; only the micro-batch that
steps divides by the window's summed lengths, the others backpropagate the weighted loss as is."""


def train(net, loader, optimizer, loss_func, epochs, accumulate_grad_steps=50, device="cuda"):
    for epoch in range(epochs):
        weights = 0
        for i, sentence in enumerate(loader):
            heads = sentence[2].to(device)
            sentence_len = sentence[3][0]
            loss = loss_func(net(sentence), heads)
            loss = loss * sentence_len
            weights += sentence_len
            if (i + 1) % accumulate_grad_steps == 0 or i + 1 == len(loader):
                loss = loss / weights
                loss.backward()
                optimizer.step()
                net.zero_grad()
                weights = 0
            else:
                loss.backward()  # expect: GL201
