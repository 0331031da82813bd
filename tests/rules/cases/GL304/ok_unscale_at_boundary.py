import torch

scaler = torch.amp.GradScaler("cuda")
for i, batch in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss / args.gradient_accumulation_steps
    scaler.scale(loss).backward()
    if (i + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
