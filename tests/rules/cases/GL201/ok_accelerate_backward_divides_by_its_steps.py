from accelerate import Accelerator


def train(model, optimizer, train_dataloader, epochs, accumulation_steps=4):
    accelerator = Accelerator(gradient_accumulation_steps=accumulation_steps)
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss
            # Accelerate's backward divides the loss by its gradient_accumulation_steps
            accelerator.backward(loss)  # expect: GL401
            if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_dataloader):
                optimizer.step()
                optimizer.zero_grad()
