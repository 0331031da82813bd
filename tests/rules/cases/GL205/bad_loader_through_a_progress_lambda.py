"""A VQA fine-tuning trainer shows progress only when asked, through a lambda that hands the
loader back in a progress bar or bare; the window's step waits for `(i + 1) % N == 0` and
nothing flushes the epoch's last partial window."""
import torch
from tqdm import tqdm


class VQATrainer:
    def __init__(self, model, optimizer, args):
        self.model = model
        self.optim = optimizer
        self.args = args

    def train(self, loader, epochs):
        args = self.args
        iter_wrapper = (lambda x: tqdm(x, total=len(loader))) if args.tqdm else (lambda x: x)
        for epoch in range(epochs):
            for i, (feats, boxes, sent, target) in iter_wrapper(enumerate(loader)):
                self.model.train()
                logit = self.model(feats.cuda(), boxes.cuda(), sent)
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, target.cuda())
                loss = loss / args.gradient_accumulation_steps
                loss.backward()
                if (i + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.max_grad_norm)
                    self.optim.step()
                    self.model.zero_grad()
