import torch
import torch.nn.functional as F

# binary case: softmax appears only in the multi-class branch below
if n_classes == 1:
    log_p = F.logsigmoid(logits)
else:
    log_p = F.log_softmax(logits, dim=1)
gate = torch.log(torch.sigmoid(gate_logits))
