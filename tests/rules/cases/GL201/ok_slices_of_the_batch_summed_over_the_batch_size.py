"""A text-to-image fine-tuning step cutting each local batch into micro-batches: each slice sums
its per-sample losses and divides by the whole local batch's size (read off the batch the outer
loop gives), so the slices add up to the batch's mean."""

import contextlib

import torch


def train(args, model, loader, opt, transport):
    for step, data_pack in enumerate(loader):
        x, cap_feats = data_pack["latents"], data_pack["cap_feats"]
        n_micro = (data_pack["local_bsz"] + args.micro_batch_size - 1) // args.micro_batch_size
        for mb_idx in range(n_micro):
            last_mb = mb_idx == n_micro - 1
            mb_st, mb_ed = mb_idx * args.micro_batch_size, (mb_idx + 1) * args.micro_batch_size
            with model.no_sync() if not last_mb else contextlib.nullcontext():
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss_dict = transport.training_losses(model, x[mb_st:mb_ed], dict(cap_feats=cap_feats[mb_st:mb_ed]))
                loss = loss_dict["loss"].sum() / data_pack["local_bsz"]
                loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
