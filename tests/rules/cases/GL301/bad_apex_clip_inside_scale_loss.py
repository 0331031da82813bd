import torch
from apex import amp
from transformers import GPT2LMHeadModel, get_linear_schedule_with_warmup


def train(model_config, loader, epochs=5, lr=1.5e-4, max_grad_norm=1.0, fp16=True, accumulation=1):
    model = GPT2LMHeadModel(config=model_config).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, 2000, epochs * len(loader))
    if fp16:
        model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    for epoch in range(epochs):
        for step, input_ids in enumerate(loader):
            loss = model(input_ids.cuda(), labels=input_ids.cuda()).loss
            if fp16:
                with amp.scale_loss(loss, optimizer) as scaled_loss:
                    scaled_loss.backward()
                    torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), max_grad_norm)  # expect: GL301
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
