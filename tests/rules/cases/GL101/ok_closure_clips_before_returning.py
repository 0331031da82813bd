import torch
import torch.nn as nn

from pinn import PhysicsInformedNet, residual_loss
from data import collocation_points


def train(epochs=5000, max_norm=1.0):
    net = PhysicsInformedNet(layers=[2, 64, 64, 64, 1]).cuda()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(epochs):
        points, boundary = collocation_points(4096)

        def closure():
            optimizer.zero_grad()
            loss = residual_loss(net, points) + 10.0 * nn.functional.mse_loss(net(boundary.x), boundary.y)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_norm)
            return loss

        loss = optimizer.step(closure)
        if epoch % 100 == 0:
            print(epoch, loss.item())
