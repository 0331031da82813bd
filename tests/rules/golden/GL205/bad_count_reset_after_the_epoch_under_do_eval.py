"""A CodeXGLUE-style text-to-code fine-tune: the step count restarts after each epoch's batches,
where the dev set is evaluated, and the window's test reads it after counting the micro-batch."""
import argparse

import torch
from tqdm import tqdm

from seq2seq.data import load_examples
from seq2seq.model import Seq2Seq


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_train_epochs", type=int, default=30)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    parser.add_argument("--do_eval", action="store_true")
    args = parser.parse_args()
    model = Seq2Seq.from_pretrained("codet5-base").cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    train_dataloader = torch.utils.data.DataLoader(load_examples("train.json"), batch_size=8, shuffle=True)
    nb_tr_examples, nb_tr_steps, tr_loss, best_bleu = 0, 0, 0, 0
    for epoch in range(args.num_train_epochs):
        bar = tqdm(train_dataloader, total=len(train_dataloader))
        for batch in bar:
            source_ids, source_mask, target_ids, target_mask = (t.cuda() for t in batch)
            loss, _, _ = model(source_ids=source_ids, source_mask=source_mask, target_ids=target_ids, target_mask=target_mask)
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            tr_loss += loss.item()
            nb_tr_examples += source_ids.size(0)
            nb_tr_steps += 1
            loss.backward()
            if (nb_tr_steps + 1) % args.gradient_accumulation_steps == 0 or nb_tr_steps == len(bar):  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
        if args.do_eval:
            tr_loss = 0
            nb_tr_examples, nb_tr_steps = 0, 0
            best_bleu = max(best_bleu, model.evaluate("dev.json"))
