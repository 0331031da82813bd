import torch
import torch.nn as nn
from apex import amp

from modeling import BertForPreTraining, BertConfig
from data import pretraining_loader


def main(args):
    config = BertConfig.from_json_file(args.config_file)
    model = BertForPreTraining(config).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O2", loss_scale="dynamic")
    loader = pretraining_loader(args.input_dir, args.train_batch_size)
    global_step = 0
    for step, batch in enumerate(loader):
        input_ids, segment_ids, input_mask, masked_lm_labels, next_sentence_labels = [t.cuda() for t in batch]
        loss = model(input_ids, segment_ids, input_mask, masked_lm_labels, next_sentence_labels)
        with amp.scale_loss(loss, optimizer, delay_unscale=(step + 1) % args.gradient_accumulation_steps != 0) as scaled_loss:
            scaled_loss.backward()  # expect: GL201
        if (step + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
            torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            global_step += 1
