import paddle
import paddle.nn.functional as F
from paddlenlp.transformers import AutoModelForSequenceClassification, LinearDecayWithWarmup


def do_train(args, train_data_loader):
    """PaddlePaddle: `clear_grad()` clears, and gradlint's torch rules do not apply."""
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name_or_path, num_classes=args.num_classes)
    lr_scheduler = LinearDecayWithWarmup(args.learning_rate, args.max_steps, args.warmup_steps)
    optimizer = paddle.optimizer.AdamW(learning_rate=lr_scheduler, parameters=model.parameters())
    for epoch in range(args.num_train_epochs):
        for step, (input_ids, segment_ids, labels) in enumerate(train_data_loader):
            logits = model(input_ids, segment_ids)
            loss = F.cross_entropy(logits, labels) / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                optimizer.step()
                lr_scheduler.step()
                optimizer.clear_grad()
