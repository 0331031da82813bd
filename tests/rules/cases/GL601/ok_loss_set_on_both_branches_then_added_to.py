"""Training a non-autoregressive translator, or fine-tuning it against a teacher: the fertility
cost is part of the loss either way. When fine-tuning, the student's loss is computed afresh each
iteration on both branches of the fertility switch, then the cost is added to it, and the mix of
both losses is backpropagated; that `+=` builds this iteration's loss, it keeps nothing across
iterations."""

import torch


def train_model(args, model, teacher_model, train_loader, opt):
    for batch in train_loader:
        encoding, inputs, targets, fertility_cost = model.prepare(batch)
        if not args.finetuning:
            loss = model.cost(targets, out=model(encoding, inputs))
            if args.fertility:
                loss += fertility_cost
        else:
            if not args.fertility:
                out, probs = model(encoding, inputs, return_probs=True)
                loss_student = model.batched_cost(targets, probs)
            else:
                out, probs = model(encoding, inputs, return_probs=True)
                loss_student = model.cost(targets, out=out)
            if args.fertility:
                loss_student += fertility_cost
            teacher_model.eval()
            probs_teacher = teacher_model(encoding, probs.argmax(-1).detach())
            loss_teacher = teacher_model.batched_cost(probs.detach(), probs_teacher)
            loss = (1 - args.beta1) * loss_teacher + args.beta1 * loss_student
        opt.zero_grad()
        loss.backward()
        opt.step()
