"""A SAM LoRA fine-tune: the AMP branch clears after its scaler step, the plain branch never
clears, and the only other clear is the validation pass's `model.zero_grad()` once per epoch:
within an epoch each plain step applies the sum of every batch's gradients so far."""
import torch
from tqdm import tqdm


def main(args, sam_model, optimizer, train_dataloader, val_dataloader, loss_fn, num_epochs):
    scaler = torch.amp.GradScaler("cuda", enabled=args.use_amp)
    for epoch in range(num_epochs):
        sam_model.train()
        for step, (image, gt2D, boxes) in enumerate(tqdm(train_dataloader)):
            image, gt2D = image.cuda(), gt2D.cuda().float()
            if args.use_amp:
                with torch.autocast(device_type="cuda", dtype=torch.float16):
                    loss = loss_fn(sam_model(image, boxes), gt2D)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            else:
                loss = loss_fn(sam_model(image, boxes), gt2D)
                loss.backward()
                optimizer.step()  # expect: GL104
        sam_model.eval()
        for image, gt2D, boxes in val_dataloader:
            sam_model.zero_grad(set_to_none=True)
            with torch.inference_mode():
                val_loss = loss_fn(sam_model(image.cuda(), boxes), gt2D.cuda().float())
        print(epoch, val_loss.item())
