"""A dialogue model's step averages its loss over the dialogue's turns (`total /= len(turns)`,
in place), and the loop accumulates it over `gradient_accumulation_steps` batches undivided."""
import torch
import torch.nn.functional as F


class DialogModel(torch.nn.Module):
    def __init__(self, speaker_a, speaker_b):
        super().__init__()
        self.speaker_a, self.speaker_b = speaker_a, speaker_b

    def train_one_step(self, batch):
        turns = batch["input_ids"]
        total_loss = 0.0
        for turn_idx in range(len(turns)):
            speaker = self.speaker_a if turn_idx % 2 == 0 else self.speaker_b
            logits = speaker(turns[turn_idx])
            total_loss += F.cross_entropy(logits[:, :-1].flatten(0, 1), turns[turn_idx][:, 1:].flatten())
        total_loss /= len(turns)
        return total_loss


def train(speaker_a, speaker_b, loader, args):
    model = DialogModel(speaker_a, speaker_b)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=args.total_steps)
    update_count = 0
    for epoch in range(args.num_train_epochs):
        for batch in loader:
            loss = model.train_one_step(batch)
            (loss / args.gradient_accumulation_steps).backward()  # expect: GL201
            update_count += 1
            if update_count % args.gradient_accumulation_steps == args.gradient_accumulation_steps - 1:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
