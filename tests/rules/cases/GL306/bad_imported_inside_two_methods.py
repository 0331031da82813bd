import torch


class ClassificationModel:
    """Each method imports the AMP module where it needs it."""

    def __init__(self, model, args):
        self.model = model
        self.args = args

    def train(self, loader, optimizer):
        if self.args.fp16:
            from torch.cuda import amp

            scaler = amp.GradScaler()  # expect: GL306
        for batch in loader:
            optimizer.zero_grad()
            with amp.autocast():  # expect: GL306
                loss = self.model(**batch).loss
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()

    def evaluate(self, loader):
        from torch.cuda import amp

        with torch.no_grad(), amp.autocast():  # expect: GL306
            return [self.model(**batch).logits for batch in loader]
