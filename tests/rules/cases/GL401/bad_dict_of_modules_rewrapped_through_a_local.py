"""An ASR trainer keeping its model as a dict of modules: when several processes run, each
trainable entry is wrapped in DDP through a local and stored back under its key; the epoch's
micro-batches run every module by key and step every `grad_accumulation_factor` of them,
all-reducing on each backward."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


class ASRTrainer:
    def __init__(self, cfg, model, train_dataloader, optimizer, criterion):
        self.cfg = cfg
        self.model = model
        self.train_dataloader = train_dataloader
        self.optimizer = optimizer
        self.criterion = criterion
        if dist.is_initialized() and dist.get_world_size() > 1:
            for name, module in self.model.items():
                if any(p.requires_grad for p in module.parameters()):
                    module = torch.nn.SyncBatchNorm.convert_sync_batchnorm(module)
                    module = DistributedDataParallel(module)
                    self.model[name] = module

    def train_one_epoch(self, epoch):
        step = 0
        for batch in self.train_dataloader:
            step += 1
            should_step = step % self.cfg["grad_accumulation_factor"] == 0
            src = self.model["CNN"](batch["feats"])
            enc_out, pred = self.model["Transformer"](src, batch["tokens_bos"])
            p_ctc = self.model["ctc_lin"](enc_out).log_softmax(dim=-1)
            p_seq = self.model["seq_lin"](pred).log_softmax(dim=-1)
            loss = self.cfg["ctc_weight"] * self.criterion["ctc"](p_ctc, batch["tokens"]) + (1 - self.cfg["ctc_weight"]) * self.criterion["seq"](p_seq, batch["tokens_eos"])
            (loss / self.cfg["grad_accumulation_factor"]).backward()  # expect: GL401
            if should_step or step == len(self.train_dataloader):
                self.optimizer.step()
                self.optimizer.zero_grad()
