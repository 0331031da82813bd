import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class ModelEntry:
    def __init__(self, model, name, trainable):
        self.model = model
        self.name = name
        self.trainable = trainable


class Runner:
    """The models live in entries built by a helper that wraps them in DDP when distributed."""

    def __init__(self, args, upstream, downstream):
        self.args = args
        self.upstream = self._init_model(upstream, "Upstream", trainable=False)
        self.downstream = self._get_downstream(downstream)

    def _init_model(self, model, name, trainable):
        if dist.is_initialized() and trainable:
            model = DDP(model, device_ids=[self.args.local_rank])
        return ModelEntry(model, name, trainable)

    def _get_downstream(self, downstream):
        return self._init_model(downstream, "Downstream", trainable=True)

    def train(self, dataloader, optimizer, accum_steps):
        backward_steps = 0
        for epoch in range(self.args.epochs):
            for wavs, labels in dataloader:
                with torch.no_grad():
                    features = self.upstream.model(wavs)
                loss = self.downstream.model(features, labels) / accum_steps
                loss.backward()  # expect: GL401
                backward_steps += 1
                if backward_steps % accum_steps > 0:
                    continue
                torch.nn.utils.clip_grad_norm_(self.downstream.model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
