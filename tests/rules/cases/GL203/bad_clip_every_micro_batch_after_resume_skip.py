"""A video diffusion trainer that can resume mid-epoch: the first epoch skips the micro-batches
already trained, then every micro-batch is clipped although the step waits for the window."""
import torch


def train(model, diffusion, loader, opt, args, first_epoch, resume_step, train_steps):
    for epoch in range(first_epoch, args.epochs):
        for step, video in enumerate(loader):
            # skip what the checkpoint already covers
            if args.resume_from_checkpoint and epoch == first_epoch and step < resume_step:
                continue
            x = video.to(args.device)
            t = torch.randint(0, diffusion.num_timesteps, (x.shape[0],), device=x.device)
            loss = diffusion.training_losses(model, x, t)["loss"].mean() / args.gradient_accumulation_steps
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_max_norm)  # expect: GL203
            train_steps += 1
            if train_steps % args.gradient_accumulation_steps == 0:
                opt.step()
                opt.zero_grad()
    return train_steps
