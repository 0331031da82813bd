import argparse

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--accumulate-step", type=int, default=4)
    args = parser.parse_args()

    model = torch.nn.Conv2d(1, 1, 3, padding=1).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    data_loader = torch.utils.data.DataLoader(torch.randn(64, 1, 32, 32), batch_size=4)
    len_data = len(data_loader)
    for epoch in range(args.epochs):
        for step, image in enumerate(data_loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(image.cuda()), image.cuda())
            scaler.scale(loss).backward()  # expect: GL201
            if (step + 1) % args.accumulate_step == 0 or step == len_data - 1:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
