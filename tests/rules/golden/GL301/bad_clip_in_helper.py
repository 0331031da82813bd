import torch
import torch.nn.functional as F
from torch.amp import GradScaler

from model import Wav2Letter
from data import audio_loader


def clip_gradients(model, max_norm):
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # expect: GL301


def train(epochs=40, max_norm=400.0):
    model = Wav2Letter(num_features=161, num_classes=29).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=3e-4, momentum=0.9, nesterov=True)
    scaler = GradScaler("cuda")
    loader = audio_loader("an4", batch_size=20)
    for epoch in range(epochs):
        for spect, targets, spect_lens, target_lens in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                log_probs = model(spect.cuda()).log_softmax(-1)
            loss = F.ctc_loss(log_probs.float().transpose(0, 1), targets, spect_lens, target_lens)
            scaler.scale(loss).backward()
            norm = clip_gradients(model, max_norm)
            scaler.step(optimizer)
            scaler.update()
        print(f"epoch {epoch}: loss {loss.item():.3f} norm {norm:.1f}")


if __name__ == "__main__":
    train()
