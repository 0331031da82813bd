"""A speech-separation solver whose window is computed from two options (the effective batch
over the batch), counted on `self`: each micro-batch is clipped, and the DDP model syncs on
every one."""

import torch


class Solver:
    def __init__(self, args, model, optimizer):
        self.args = args
        self.model = model
        if args.distributed:
            self.model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank])
        self.optimizer = optimizer
        self.accu_count = 0

    def _run_one_epoch(self, data_loader, state='train'):
        self.accu_count = 0
        self.optimizer.zero_grad()
        for i, (a_mix, a_tgt) in enumerate(data_loader):
            a_est = self.model(a_mix)
            loss = torch.nn.functional.l1_loss(a_est, a_tgt)
            if state == 'train':
                if self.args.accu_grad:
                    self.accu_count += 1
                    loss_scaled = loss / (self.args.effec_batch_size / self.args.batch_size)
                    loss_scaled.backward()  # expect: GL401
                    if self.accu_count == (self.args.effec_batch_size / self.args.batch_size):
                        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad_norm)  # expect: GL203
                        self.optimizer.step()
                        self.optimizer.zero_grad()
                        self.accu_count = 0
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad_norm)
                    self.optimizer.step()
                    self.optimizer.zero_grad()
