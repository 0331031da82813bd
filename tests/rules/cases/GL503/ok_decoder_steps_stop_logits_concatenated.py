import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, dims, n_mels, r):
        super().__init__()
        self.rnn = nn.LSTMCell(n_mels + dims, dims)
        self.mel_proj = nn.Linear(dims, n_mels * r)
        self.stop_proj = nn.Linear(dims + dims, 1)

    def forward(self, memory, prenet_in, hidden, cell, context):
        hidden, cell = self.rnn(torch.cat([prenet_in, context], dim=-1), (hidden, cell))
        mels = self.mel_proj(hidden)
        s = torch.cat((hidden, context), dim=1)
        stop_tokens = self.stop_proj(s)
        return mels, hidden, cell, stop_tokens


class Tacotron(nn.Module):
    """Stop-token logits of every decoder step, concatenated."""

    def __init__(self, dims=256, n_mels=80, r=2):
        super().__init__()
        self.r, self.n_mels, self.dims = r, n_mels, dims
        self.decoder = Decoder(dims, n_mels, r)

    def forward(self, memory, mels):
        batch = memory.size(0)
        hidden = cell = context = memory.new_zeros(batch, self.dims)
        mel_outputs, stop_outputs = [], []
        frame = memory.new_zeros(batch, self.n_mels)
        for t in range(0, mels.size(-1), self.r):
            mel_frames, hidden, cell, stop_tokens = self.decoder(memory, frame, hidden, cell, context)
            mel_outputs.append(mel_frames)
            stop_outputs.extend([stop_tokens] * self.r)
            frame = mels[:, :, t]
        return torch.cat(mel_outputs, dim=1), torch.cat(stop_outputs, 1)


def train(loader, epochs, lr=1e-3):
    model = Tacotron()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for memory, mels, stop in loader:
            mel_hat, stop_pred = model(memory, mels)
            loss = F.mse_loss(mel_hat, mels.flatten(1)) + F.binary_cross_entropy_with_logits(stop_pred, stop)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
