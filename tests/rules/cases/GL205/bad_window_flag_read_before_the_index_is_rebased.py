"""DINO-style epoch: the window flag is read from the epoch's own index, which the body then
rebases to a global iteration for the schedules; an epoch ending inside a window leaves its
last micro-batches' gradients to the next epoch's first step."""
import torch


def train_one_epoch(student, teacher, dino_loss, data_loader, optimizer, lr_schedule, epoch, args):
    for it, (images, _) in enumerate(data_loader):
        do_optimizer_step = it % args.batches_per_optimization_step == args.batches_per_optimization_step - 1
        it = len(data_loader) * epoch + it
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr_schedule[it]
        images = [im.cuda(non_blocking=True) for im in images]
        loss = dino_loss(student(images), teacher(images[:2]), epoch) / args.batches_per_optimization_step
        loss.backward()
        if do_optimizer_step:  # expect: GL205
            torch.nn.utils.clip_grad_norm_(student.parameters(), args.clip_grad)
            optimizer.step()
            optimizer.zero_grad()
