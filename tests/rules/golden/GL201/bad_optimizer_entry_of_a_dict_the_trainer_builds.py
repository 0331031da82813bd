"""A crystal-property modeller keeps one optimizer per model in a dict it builds itself, and steps
the classifier's entry every `batch_size` batches, as the comment says, to accumulate: the mean
loss of each batch is not divided by that window."""
import torch


class Modeller:
    def __init__(self, models, lr=1e-4):
        self.models_dict = models
        self.optimizers_dict = {name: torch.optim.AdamW(m.parameters(), lr=lr) for name, m in models.items()}

    def classification_epoch(self, data_loader):
        self.models_dict["classifier"].train()
        for i, data in enumerate(data_loader):
            output = self.models_dict["classifier"](data.x)
            loss = torch.nn.functional.cross_entropy(output, data.y, reduction="none")
            (loss.mean() / data_loader.batch_size).backward()  # expect: GL201
            # accumulate gradients over several batches before each update
            if i % data_loader.batch_size == 0 or i == len(data_loader) - 1:
                self.optimizers_dict["classifier"].step()
                self.optimizers_dict["classifier"].zero_grad(set_to_none=True)
