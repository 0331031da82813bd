import time


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.delimiter = delimiter

    def log_every(self, iterable, print_freq, header=None, dataset_len=None, epoch_info=None):
        """Yields the loader's batches one by one, or several epochs' worth of them when told
        the epochs to span (a run counted in steps)."""
        if not dataset_len:
            dataset_len = len(iterable)
        iterator = iter(iterable)
        train_steps = dataset_len
        if epoch_info:
            start_epoch, end_epoch = epoch_info
            train_steps = (end_epoch - start_epoch) * dataset_len
        start = time.time()
        for i in range(train_steps):
            batch = next(iterator)
            yield batch
            if i % print_freq == 0:
                print(f"{header} [{i}/{train_steps}] {time.time() - start:.1f}s")


def train_epoch(model, data_loader, tokenizer, optimizer, scheduler, config, epoch):
    model.train()
    metric_logger = MetricLogger()
    accumulate_steps = int(config.get("accumulate_steps", 1))
    for i, (image, text) in enumerate(metric_logger.log_every(data_loader, 50, f"Train epoch {epoch}")):
        text_input = tokenizer(text, padding="longest", return_tensors="pt")
        loss_itc, loss_itm = model(image, text_input.input_ids, text_input.attention_mask)
        loss = (loss_itc + loss_itm) / accumulate_steps
        loss.backward()
        if (i + 1) % accumulate_steps == 0 or i + 1 == len(data_loader):  # expect: GL205
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()


def train_run(model, data_loader, tokenizer, optimizer, scheduler, config):
    """The same logger told to span every epoch: the index counts on across them."""
    model.train()
    metric_logger = MetricLogger()
    accumulate_steps = int(config.get("accumulate_steps", 1))
    for i, (image, text) in enumerate(metric_logger.log_every(data_loader, 50, "Train", epoch_info=(0, config["epochs"]))):
        text_input = tokenizer(text, padding="longest", return_tensors="pt")
        loss = model(image, text_input.input_ids, text_input.attention_mask) / accumulate_steps
        loss.backward()
        if (i + 1) % accumulate_steps == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
