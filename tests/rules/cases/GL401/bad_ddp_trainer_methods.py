import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from speech.models import Conformer
from speech.data import librispeech_loader


class Trainer:
    def __init__(self, args):
        self.args = args
        self.rank = dist.get_rank()
        self.model = DistributedDataParallel(Conformer(args).cuda(self.rank), device_ids=[self.rank])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr, betas=(0.9, 0.98))
        self.scaler = torch.amp.GradScaler("cuda")
        self.ctc = torch.nn.CTCLoss(zero_infinity=True)
        self.num_updates = 0

    def compute_loss(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            log_probs, lengths = self.model(batch["features"].cuda(), batch["lengths"].cuda())
        return self.ctc(log_probs.transpose(0, 1), batch["targets"].cuda(), lengths, batch["target_lengths"])

    def backward(self, loss):
        self.scaler.scale(loss / self.args.update_freq).backward()

    def step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        self.num_updates += 1

    def train_epoch(self, loader):
        for i, batch in enumerate(loader):
            loss = self.compute_loss(batch)
            self.backward(loss)  # expect: GL401
            if (i + 1) % self.args.update_freq == 0:  # expect: GL205
                self.step()
