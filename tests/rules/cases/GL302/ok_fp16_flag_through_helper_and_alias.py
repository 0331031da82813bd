import torch


def fwd_bwd_pass_cached(model, batch, args, trainer):
    """The same `fp16` flag the caller tests, under another spelling."""
    loss = model(**batch).loss / args.gradient_accumulation_steps
    if args.fp16:
        trainer.scaler.scale(loss).backward()
    else:
        loss.backward()
    return loss


class BiEncoderTrainer:
    def __init__(self, args, biencoder, optimizer):
        self.args = args
        self.biencoder = biencoder
        self.optimizer = optimizer
        self.scaler = torch.cuda.amp.GradScaler() if args.fp16 else None  # expect: GL306

    def train_epoch(self, loader, scheduler):
        args = self.args
        for i, batch in enumerate(loader):
            loss = fwd_bwd_pass_cached(self.biencoder, batch, args, self)
            if (i + 1) % args.gradient_accumulation_steps == 0 or i + 1 == len(loader):
                if self.args.fp16:
                    self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.biencoder.parameters(), args.max_grad_norm)
                if self.args.fp16:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.optimizer.step()
                scheduler.step()
                self.biencoder.zero_grad()
