import torch
from apex import amp

from modeling import TransformerXL
from data import wikitext_iterator


def train(args):
    model = TransformerXL(n_layer=16, d_model=410, n_head=10).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.max_step)
    for step, (data, target) in enumerate(wikitext_iterator(args.batch_size, args.tgt_len)):
        loss = model(data.cuda(), target.cuda()).float().mean()
        with amp.scale_loss(loss, optimizer) as scaled_loss:
            scaled_loss.backward()
        torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), args.clip)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
