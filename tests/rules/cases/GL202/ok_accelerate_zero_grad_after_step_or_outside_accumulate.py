"""Inside `accelerator.accumulate(model)` the clear comes after the step; a second loop clears
before entering the window, where the previous micro-batch's sync flag still holds (it clears
only after a step); a third accelerator does not accumulate; a fourth runs on DeepSpeed (it
reads the engine's grad norm), whose engine clears on its own schedule; a fifth steps and clears
after each of two losses (the first step takes the window, the clear comes after it)."""
from accelerate import Accelerator


def train(model, optimizer, loader, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


def train_clearing_first(model, optimizer, loader, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        optimizer.zero_grad()
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()


def train_without_window(model, optimizer, loader):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            optimizer.zero_grad()
            accelerator.backward(model(**batch).loss)
            optimizer.step()


def train_on_deepspeed(model, optimizer, loader, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            optimizer.zero_grad()
            accelerator.backward(model(**batch).loss)
            if accelerator.sync_gradients:
                print(model.get_global_grad_norm())
            optimizer.step()


def train_two_losses_one_optimizer(net, disc, optimizer, optimizer_disc, loader, accum=4):
    accelerator = Accelerator(gradient_accumulation_steps=accum)
    net, disc, optimizer, optimizer_disc, loader = accelerator.prepare(net, disc, optimizer, optimizer_disc, loader)
    for batch in loader:
        with accelerator.accumulate(net, disc):
            pred = net(batch["source"])
            accelerator.backward((pred - batch["target"]).pow(2).mean())
            optimizer.step()
            optimizer.zero_grad()
            accelerator.backward(disc(net(batch["source"])).mean())
            optimizer.step()
            optimizer.zero_grad()
