import torch


def token_log_probs(model, input_ids):
    logits = model(input_ids).logits[:, :-1]
    log_probs = logits.log_softmax(-1)  # expect: GL501
    return torch.gather(log_probs, 2, input_ids[:, 1:, None]).squeeze(-1)
