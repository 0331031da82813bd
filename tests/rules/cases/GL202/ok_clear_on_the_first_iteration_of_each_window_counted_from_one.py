"""An Ignite-style step function: Ignite counts iterations from 1, so `iteration % N == 1` is the
first micro-batch of each window (or every one when N is 1), cleared before its backward; the
step runs on `iteration % N == 0`, the window's last."""

import torch


class MaximumLikelihoodEstimationEngine:
    def __init__(self, model, crit, optimizer, config):
        self.model = model
        self.crit = crit
        self.optimizer = optimizer
        self.config = config
        self.scaler = torch.amp.GradScaler("cuda")

    @staticmethod
    def train(engine, mini_batch):
        engine.model.train()
        if engine.state.iteration % engine.config.iteration_per_update == 1 or engine.config.iteration_per_update == 1:
            if engine.state.iteration > 1:
                engine.optimizer.zero_grad()
        x, y = mini_batch.src, mini_batch.tgt[:, 1:]
        with torch.autocast("cuda", dtype=torch.float16):
            y_hat = engine.model(x, mini_batch.tgt[:, :-1])
            loss = engine.crit(y_hat.contiguous().view(-1, y_hat.size(-1)), y.contiguous().view(-1))
            backward_target = loss.div(y.size(0)).div(engine.config.iteration_per_update)
        engine.scaler.scale(backward_target).backward()
        if engine.state.iteration % engine.config.iteration_per_update == 0 and engine.state.iteration > 0:
            engine.scaler.unscale_(engine.optimizer)
            torch.nn.utils.clip_grad_norm_(engine.model.parameters(), engine.config.max_grad_norm)
            engine.scaler.step(engine.optimizer)
            engine.scaler.update()
        return float(loss / y.size(0))
