"""A program-synthesis model whose forward returns its drop head through a sigmoid in both of
its returns (with the operator head, or without); the script wraps it in DataParallel and gives
that head to `nn.BCELoss`."""

import torch
from torch import nn


class PCCoder(nn.Module):
    def __init__(self, hidden, num_statements, max_vars, num_operators):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())
        self.statement_head = nn.Linear(hidden, num_statements)
        self.drop_head = nn.Linear(hidden, max_vars)
        self.operator_head = nn.Linear(hidden, num_operators)

    def forward(self, x, get_operator_head=True):
        x = self.encoder(x)
        if get_operator_head:
            return self.statement_head(x), torch.sigmoid(self.drop_head(x)), self.operator_head(x)
        else:
            return self.statement_head(x), torch.sigmoid(self.drop_head(x))


def train(args, train_loader):
    model = PCCoder(256, 1298, 20, 6)
    model.cuda()
    model = nn.DataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learn_rate)
    statement_criterion = nn.CrossEntropyLoss()
    drop_criterion = nn.BCELoss()
    operator_criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        for x, y, z, w in train_loader:
            optimizer.zero_grad()
            pred_act, pred_drop, pred_operator = model(x.cuda())
            statement_loss = statement_criterion(pred_act, y.cuda())
            drop_loss = drop_criterion(pred_drop, z.cuda())  # expect: GL503
            operator_loss = operator_criterion(pred_operator, w.cuda())
            loss = statement_loss + operator_loss + drop_loss
            loss.backward()
            optimizer.step()
