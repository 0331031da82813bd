import torch
import torch.nn as nn

from models import Discriminator  # ends in nn.Sigmoid() by design

netD = Discriminator()
criterion = nn.BCELoss()
output = netD(real_images)
errD_real = criterion(output, torch.full_like(output, 1.0))
errD_real.backward()
gate = torch.sigmoid(gate_logits)
