import torch


class DenoiserTrainer:
    def __init__(self, model, lr=2e-4):
        self.model = model.cuda()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cuda")

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for noisy, clean in loader:
                self.opt.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.l1_loss(self.model(noisy.cuda()), clean.cuda())
                loss.backward()  # expect: GL305
                self.scaler.step(self.opt)
                self.scaler.update()
