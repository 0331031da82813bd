"""An ESPnet-style trainer made of classmethods: `run` wraps the model in DDP when distributed
and hands it by keyword to `cls.train_one_epoch`, which accumulates `accum_grad` micro-batches
with every backward all-reducing."""
import torch


class Trainer:
    @classmethod
    def run(cls, model, optimizer, scheduler, iterator_factory, options, distributed):
        if distributed:
            dp_model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
        elif options.ngpu > 1:
            dp_model = torch.nn.parallel.DataParallel(model, device_ids=list(range(options.ngpu)))
        else:
            dp_model = model
        for iepoch in range(options.max_epoch):
            cls.train_one_epoch(model=dp_model, optimizer=optimizer, scheduler=scheduler, iterator=iterator_factory(iepoch), options=options)

    @classmethod
    def train_one_epoch(cls, model, optimizer, scheduler, iterator, options):
        accum_grad = options.accum_grad
        model.train()
        for iiter, batch in enumerate(iterator, 1):
            loss = model(**batch)
            loss = loss / accum_grad
            loss.backward()  # expect: GL401
            if iiter % accum_grad == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), options.grad_clip)
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
