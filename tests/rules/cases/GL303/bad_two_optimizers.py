import torch

scaler = torch.amp.GradScaler("cuda")
enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-4)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=1e-3)
for src, tgt in loader:
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(decoder(encoder(src), tgt[:, :-1]), tgt[:, 1:])
    scaler.scale(loss).backward()
    scaler.step(enc_opt)  # expect: GL303
    scaler.step(dec_opt)  # expect: GL303
