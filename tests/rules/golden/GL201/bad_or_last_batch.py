import torch

import models_mae
from util.datasets import build_pretrain_dataset


def train_one_epoch(model, loader, optimizer, epoch, accum_iter=4, mask_ratio=0.75):
    model.train()
    for data_iter_step, (samples, _) in enumerate(loader):
        samples = samples.cuda(non_blocking=True)
        loss, _, _ = model(samples, mask_ratio=mask_ratio)
        (loss / accum_iter).backward()  # expect: GL201
        if (data_iter_step + 1) % accum_iter == 0 or data_iter_step == len(loader) - 1:
            optimizer.step()
            optimizer.zero_grad()
        if data_iter_step % 100 == 0:
            print(f"epoch {epoch} [{data_iter_step}/{len(loader)}] loss {loss.item():.4f}")


def main():
    model = models_mae.mae_vit_base_patch16(norm_pix_loss=True).cuda()
    loader = torch.utils.data.DataLoader(build_pretrain_dataset("imagenet/train"), batch_size=64,
                                         shuffle=True, num_workers=10, drop_last=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4, betas=(0.9, 0.95))
    for epoch in range(400):
        train_one_epoch(model, loader, optimizer, epoch)


if __name__ == "__main__":
    main()
