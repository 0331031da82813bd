import torch

if hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:  # torch < 2.3
    scaler = torch.cuda.amp.GradScaler()
