import torch

from asr.models import ConformerCTC
from asr.data import speech_batches


def train_epoch(model, optimizer, scaler, batches, accum_grad_multiple_step=4):
    zero_grad_next_step = True
    count_grad_accum = 0
    for features, targets in batches:
        # clear the gradients when an accumulation window starts
        if zero_grad_next_step:
            optimizer.zero_grad()
            count_grad_accum = 0
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(features.cuda(), targets.cuda()) / accum_grad_multiple_step
        scaler.scale(loss).backward()
        count_grad_accum += 1
        perform_update_step = count_grad_accum >= accum_grad_multiple_step
        if perform_update_step:
            scaler.step(optimizer)
            scaler.update()
        zero_grad_next_step = perform_update_step


if __name__ == "__main__":
    net = ConformerCTC(num_classes=5000).cuda()
    train_epoch(net, torch.optim.AdamW(net.parameters(), lr=1e-3), torch.amp.GradScaler("cuda"), speech_batches("train-960"))
