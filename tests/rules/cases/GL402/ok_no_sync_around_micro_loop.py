def train_step(model, micro_batches, optimizer):
    with model.no_sync():
        for micro in micro_batches[:-1]:
            loss = model(micro).mean() / len(micro_batches)
            loss.backward()
    loss = model(micro_batches[-1]).mean() / len(micro_batches)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
