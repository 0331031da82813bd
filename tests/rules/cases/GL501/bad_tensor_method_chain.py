import torch


def token_log_probs(model, input_ids):
    logits = model(input_ids).logits[:, :-1]
    log_probs = logits.softmax(-1).log()  # expect: GL501
    return torch.gather(log_probs, 2, input_ids[:, 1:, None]).squeeze(-1)
