"""One function trains and evaluates, switched by a flag: the epoch loop trains, steps the
schedule, then runs the same function with the flag passed as False. That later call never
steps the optimizer, so the schedule's step does not come before an epoch's steps."""
import torch


def run_epoch(model, loader, train, opt, clip=None):
    model.train(train)
    for data, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(data), labels)
        if train:
            opt.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()


def main(model, train_data, test_data, num_epochs):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[50, 80], gamma=0.1)
    for epoch in range(num_epochs):
        run_epoch(model, train_data, True, opt)
        lr_scheduler.step()
        with torch.no_grad():
            run_epoch(model, test_data, False, None)
