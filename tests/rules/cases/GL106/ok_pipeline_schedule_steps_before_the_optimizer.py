"""A torchtitan-style pretraining loop: with pipeline parallelism on, `pp_schedule.step(...)` runs
the micro-batches' forward and backward through the stages; the learning-rate schedulers step
after the optimizers."""
import torch


def train(model_parts, stages, optimizers, lr_schedulers, data_iterator, loss_fn, job_config, parallel_dims, build_pipeline_schedule):
    if parallel_dims.pp_enabled:
        pp_schedule = build_pipeline_schedule(job_config, parallel_dims, stages, loss_fn)
    for step in range(job_config.training.steps):
        input_ids, labels = next(data_iterator)
        optimizers.zero_grad()
        if parallel_dims.pp_enabled:
            is_last_stage = parallel_dims.pp_rank == parallel_dims.pp - 1
            if parallel_dims.pp_rank == 0:
                pp_schedule.step(input_ids.cuda())
            elif is_last_stage:
                losses = []
                pp_schedule.step(target=labels.cuda(), losses=losses)
            else:
                pp_schedule.step()
        else:
            pred = model_parts[0](input_ids.cuda())
            loss = loss_fn(pred, labels.cuda())
            loss.backward()
        for model in model_parts:
            torch.nn.utils.clip_grad_norm_(model.parameters(), job_config.training.max_norm)
        optimizers.step()
        lr_schedulers.step()
