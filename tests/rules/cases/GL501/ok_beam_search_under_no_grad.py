import torch
import torch.nn.functional as F


def beam_search(model, input_ids, num_beams=4, max_new_tokens=32):
    """Decode with beam search; scores are summed log-probabilities of the kept tokens."""
    model.eval()
    batch_size = input_ids.size(0)
    beams = input_ids.repeat_interleave(num_beams, dim=0)
    scores = torch.zeros(batch_size, num_beams, device=input_ids.device)
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits = model(beams)[:, -1, :]
            probs = F.softmax(logits, dim=-1)
            log_probs = torch.log(probs).view(batch_size, num_beams, -1)
            candidates = (scores.unsqueeze(-1) + log_probs).view(batch_size, -1)
            scores, flat = candidates.topk(num_beams, dim=-1)
            tokens = flat % log_probs.size(-1)
            beams = torch.cat([beams, tokens.view(-1, 1)], dim=-1)
    return beams, scores


@torch.inference_mode()
def predictive_entropy(model, loader):
    total = 0.0
    for images, _ in loader:
        probs = model(images).softmax(dim=-1)
        total += -(probs * probs.log()).sum(dim=-1).mean().item()
    return total / len(loader)
