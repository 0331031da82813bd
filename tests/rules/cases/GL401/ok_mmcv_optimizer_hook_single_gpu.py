"""The same accumulating mmcv optimizer hook in a project that trains on one GPU
(MMDataParallel): the runner's model is no DDP wrapper, there is no all-reduce to hold back."""
import torch
from mmcv.parallel import MMDataParallel
from mmcv.runner import HOOKS, EpochBasedRunner, OptimizerHook, build_optimizer


@HOOKS.register_module()
class DistOptimizerHook(OptimizerHook):
    def __init__(self, update_interval=1, grad_clip=None):
        self.grad_clip = grad_clip
        self.update_interval = update_interval

    def before_run(self, runner):
        runner.optimizer.zero_grad()

    def after_train_iter(self, runner):
        runner.outputs["loss"] /= self.update_interval
        runner.outputs["loss"].backward()
        if self.every_n_iters(runner, self.update_interval):
            if self.grad_clip is not None:
                self.clip_grads(runner.model.parameters())
            runner.optimizer.step()
            runner.optimizer.zero_grad()


def train_model(model, data_loaders, cfg, logger):
    model = MMDataParallel(model.cuda(), device_ids=[torch.cuda.current_device()])
    optimizer = build_optimizer(model, cfg.optimizer)
    runner = EpochBasedRunner(model, optimizer=optimizer, work_dir=cfg.work_dir, logger=logger, max_epochs=cfg.total_epochs)
    runner.register_training_hooks(cfg.lr_config, DistOptimizerHook(**cfg.optimizer_config), cfg.checkpoint_config, cfg.log_config)
    runner.run(data_loaders, cfg.workflow)
