import torch

enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=1e-3)
for src, tgt in pairs:
    enc_opt.zero_grad()
    loss = seq2seq_loss(encoder, decoder, src, tgt)
    loss.backward()
    enc_opt.step()
    dec_opt.step()  # expect: GL104
