import torch
import torch.nn.functional as F

from models import MobileNetV3
from data import food101_loader


def train(model, loader, optimizer, accum_steps, epochs=30):
    for epoch in range(epochs):
        for step, (images, labels) in enumerate(loader):
            logits = model(images.cuda())
            if accum_steps > 1:
                loss = F.cross_entropy(logits, labels.cuda()) / accum_steps
                loss.backward()
                if (step + 1) % accum_steps == 0:  # expect: GL205
                    optimizer.step()
                    optimizer.zero_grad()
            else:
                optimizer.zero_grad()
                F.cross_entropy(logits, labels.cuda()).backward()
                optimizer.step()


if __name__ == "__main__":
    net = MobileNetV3(num_classes=101).cuda()
    train(net, food101_loader(batch_size=64), torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9), accum_steps=4)
