"""Data the integration tests share: buggy scripts, a buggy notebook, paths."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SARIF_SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"

CLIP_AFTER_STEP = '''\
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
'''

ACCUMULATION = '''\
import torch
import torch.nn.functional as F

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum_steps = 4
for i, (x, y) in enumerate(batches):
    loss = F.mse_loss(model(x), y)
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):
        optimizer.step()
        optimizer.zero_grad()
'''

# GL201 and GL101 in one loop (and nothing else): one unsafe fix, one safe
ACCUMULATION_LATE_CLIP = ACCUMULATION.replace(
    "        optimizer.step()\n",
    "        optimizer.step()\n        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
).replace("% accum_steps == 0:", "% accum_steps == 0 or i + 1 == len(batches):")  # the tail flushed: no GL205

CLEAN = "import torch\n\nprint(torch.ones(2).sum())\n"

NOTEBOOK_CELLS = [
    ("markdown", "# Accumulation\n\nA toy run."),
    ("code", "import torch\nimport torch.nn.functional as F\n%matplotlib inline"),
    ("code", "model = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\naccum_steps = 4"),
    (
        "code",
        "for i, (x, y) in enumerate(batches):\n    loss = F.mse_loss(model(x), y)\n    loss.backward()\n"
        "    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):\n        optimizer.step()\n        optimizer.zero_grad()",
    ),
]


def notebook_json(cells=NOTEBOOK_CELLS) -> str:
    """A Jupyter-style notebook (1-space indent, sources as lists of lines)."""
    notebook = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
            | ({"execution_count": None, "outputs": []} if kind == "code" else {})
            for kind, source in cells
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1) + "\n"
