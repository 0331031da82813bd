import torch

for trial in range(num_trials):
    net = make_net(trial)
    optimizer = torch.optim.Adam(net.parameters(), lr=lrs[trial])
    loss = objective(net, data)
    loss.backward()
    optimizer.step()
