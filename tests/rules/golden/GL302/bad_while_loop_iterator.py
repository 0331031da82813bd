import torch

scaler = torch.amp.GradScaler("cuda")
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
data_iter = iter(loader)
step = 0
while step < max_steps:
    try:
        inputs, targets = next(data_iter)
    except StopIteration:
        data_iter = iter(loader)
        continue
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(inputs.cuda()), targets.cuda())
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)  # expect: GL302
    scaler.update()
    step += 1
