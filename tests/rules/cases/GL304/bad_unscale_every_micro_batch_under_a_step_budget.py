import torch


def distill(student, teacher, loader, optimizer, scheduler, args):
    scaler = torch.amp.GradScaler("cuda")
    global_step, local_step = 0, 0
    for epoch in range(args.epochs):
        for batch in loader:
            if global_step >= args.max_steps:
                break
            with torch.autocast("cuda", dtype=torch.float16):
                with torch.no_grad():
                    target = teacher(batch)
                loss = torch.nn.functional.mse_loss(student(batch), target) / args.gradient_accumulation_steps
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)  # expect: GL304
            local_step += 1
            if local_step % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(student.parameters(), args.max_grad_norm)
                scaler.step(optimizer)
                scaler.update()
                scheduler.step()
                optimizer.zero_grad()
                global_step += 1
