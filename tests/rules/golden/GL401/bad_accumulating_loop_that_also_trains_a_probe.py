"""I-JEPA-style pretraining: every micro-batch backpropagates through the DDP student, the step
waits for the window, and now and then an evaluation helper trains a linear probe in a loop of
its own. The probe's loop is not the training loop: the outer one still syncs every micro-batch."""
import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def probe_eval(encoder, loader, num_classes, epochs=2):
    probe = torch.nn.Linear(encoder.module.dim, num_classes).cuda()
    optimizer = torch.optim.AdamW(probe.parameters(), lr=1e-3)
    for _ in range(epochs):
        for x, y in loader:
            with torch.no_grad():
                features = encoder(x.cuda()).mean(1)
            loss = torch.nn.functional.cross_entropy(probe(features), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return loss.item()


def train(conf, student, predictor, loader, probe_loader, rank):
    student = DistributedDataParallel(student.cuda(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(list(student.parameters()) + list(predictor.parameters()), lr=conf.lr)
    accum = max(conf.gradient_accumulation_steps, 1)
    mini_step, global_step = 0, 0
    for batch in loader:
        should_update = mini_step == accum - 1
        sync_context = contextlib.nullcontext() if should_update else student.no_sync()
        with sync_context:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                context, target = student(batch["context"].cuda()), batch["target"].cuda()
                loss = torch.nn.functional.smooth_l1_loss(predictor(context), target)
            (loss / accum).backward()  # expect: GL401
        if should_update:
            optimizer.step()
            optimizer.zero_grad()
            global_step += 1
            if global_step % conf.eval_every == 0 and dist.get_rank() == 0:
                print("probe loss", probe_eval(student, probe_loader, conf.num_classes))
        mini_step = (mini_step + 1) % accum
