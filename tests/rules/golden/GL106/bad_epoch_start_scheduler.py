import torch

optimizer = torch.optim.SGD(model.parameters(), lr=config.step_size, momentum=config.momentum)
if config.step_schedule is not None:
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, config.step_schedule, gamma=0.1)
for epoch in range(config.epochs):
    model.train()
    for i_batch, inputs in enumerate(batches):
        optimizer.zero_grad()
        loss = -torch.mean(model(*inputs))
        loss.backward()
        optimizer.step()
    scheduler.step()  # expect: GL106
