import torch
from packaging import version

if version.parse(torch.__version__) >= version.parse("2.4"):
    autocast_ctx = torch.autocast("cuda", dtype=torch.float16)
else:
    autocast_ctx = torch.cuda.amp.autocast(dtype=torch.float16)
