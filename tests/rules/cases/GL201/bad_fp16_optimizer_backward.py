import torch
from apex.optimizers import FP16_Optimizer, FusedAdam

from modeling import BertForQuestionAnswering


def train(args, train_dataloader, device):
    model = BertForQuestionAnswering.from_pretrained(args.bert_model).to(device)
    if args.fp16:
        model.half()
        optimizer = FP16_Optimizer(FusedAdam(model.parameters(), lr=args.learning_rate), dynamic_loss_scale=True)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    global_step = 0
    model.train()
    for epoch in range(int(args.num_train_epochs)):
        for step, batch in enumerate(train_dataloader):
            input_ids, input_mask, segment_ids, start_positions, end_positions = (t.to(device) for t in batch)
            loss = model(input_ids, segment_ids, input_mask, start_positions, end_positions)
            if args.fp16:
                optimizer.backward(loss)  # expect: GL201
            else:
                loss.backward()  # expect: GL201
            if (step + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1
