import torch


def train(args, model, train_dataloader, optimizer):
    for step, batch in enumerate(train_dataloader):
        loss = model(**batch)[0] / args.gradient_accumulation_steps
        result = loss.backward(retain_graph=False)  # expect: GL105
        if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader):
            optimizer.step()
            optimizer.zero_grad()
        logger.info("step %d backward %s", step, result)
