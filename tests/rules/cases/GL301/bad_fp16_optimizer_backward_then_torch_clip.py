import torch
from torch import nn


def train(model, data_iterator, optimizer, scheduler, params, fp16=False):
    """BERT tagging fine-tuned in fp16 through apex's FP16_Optimizer when asked: its backward
    scales the loss, and the torch clip then sees the model's scaled fp16 gradients."""
    model.train()
    for _ in range(params.train_steps):
        batch_data, batch_tags = next(data_iterator)
        loss = model(batch_data, labels=batch_tags)[0]
        model.zero_grad()
        if fp16:
            optimizer.backward(loss)
        else:
            loss.backward()
        nn.utils.clip_grad_norm_(parameters=model.parameters(), max_norm=params.clip_grad)  # expect: GL301
        optimizer.step()
        scheduler.step()


def main(model, data_iterator, params, fp16):
    from apex.optimizers import FP16_Optimizer, FusedAdam

    if fp16:
        optimizer = FP16_Optimizer(FusedAdam(model.parameters(), lr=params.learning_rate), dynamic_loss_scale=True)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=params.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1.0 + 0.05 * step))
    train(model, data_iterator, optimizer, scheduler, params, fp16)
