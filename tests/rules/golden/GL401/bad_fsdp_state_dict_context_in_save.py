import contextlib
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import StateDictType
from torch.nn.parallel import DistributedDataParallel as DDP


def save_model(model, optimizer, save_dir):
    """A leftover of the FSDP days: a torch context manager taking the model, not a sync switch."""
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        if dist.get_rank() == 0:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, save_dir)


def main(args, net, train_loader):
    model = DDP(net.cuda(), device_ids=[args.local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    global_step, update_step = 0, 0
    for batch in train_loader:
        global_step += 1
        sync_context = contextlib.nullcontext() if global_step % args.gradient_accumulation == 0 or global_step == len(train_loader) else model.no_sync()
        with sync_context:
            loss = model(**batch, labels=batch["input_ids"]).loss
            scaled_loss = loss / args.gradient_accumulation
            scaled_loss.backward()  # expect: GL401
        if global_step % args.gradient_accumulation != 0 and global_step != len(train_loader):  # expect: GL205
            continue
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
        optimizer.step()
        optimizer.zero_grad()
        update_step += 1
        if update_step % args.save_every == 0:
            save_model(model, optimizer, f"{args.save_dir}/model_{update_step}")
