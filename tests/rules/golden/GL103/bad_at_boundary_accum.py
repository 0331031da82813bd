import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for step, batch in enumerate(loader):
    loss = model(**batch).loss / args.gradient_accumulation_steps
    loss.backward()
    if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()  # expect: GL103
