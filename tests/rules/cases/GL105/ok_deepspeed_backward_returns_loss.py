import deepspeed
import torch

model_engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
for batch in loader:
    loss = model_engine(batch)
    loss = model_engine.backward(loss)
    model_engine.step()
