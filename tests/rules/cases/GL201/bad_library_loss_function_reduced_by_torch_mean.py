"""A structure-prediction fine-tune takes the frame-aligned point error from a library's loss
module, averages it with `torch.mean(...)`, and steps every `accumulation_steps` proteins
without dividing by them."""
import torch
from openfold.utils.loss import compute_fape


def run(model, optimizer, train_loader, args):
    model.train()
    for iteration, batch in enumerate(train_loader):
        out = model(batch["seq"], mask=batch["mask"])
        loss_fape = torch.mean(compute_fape(
            pred_frames=out["frames"],
            target_frames=batch["frames"],
            frames_mask=out["frame_mask"],
            pred_positions=out["positions"],
            target_positions=batch["positions"],
            positions_mask=out["positions_mask"],
            length_scale=10.0,
        ))
        loss_fape.backward()  # expect: GL201
        if (iteration + 1) % args.accumulation_steps == 0:  # expect: GL205
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
            optimizer.step()
            optimizer.zero_grad()
