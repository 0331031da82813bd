import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
grad_accum = 8


def train(loader):
    for step, batch in enumerate(loader):
        # the model divides the summed token losses by the tokens of the whole window
        num_items_in_batch = batch.pop("window_tokens")
        outputs = model(**batch, num_items_in_batch=num_items_in_batch)
        loss = outputs.loss
        loss.backward()
        if (step + 1) % grad_accum == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
