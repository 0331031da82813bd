"""Fixed code runs: GL401's fix on a model wrapped in DDP only for distributed runs must leave
the single-process run training as before (a bare module has no `no_sync()`)."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import torch

from gradlint.fixer import fix_source

CASE = Path(__file__).parent / "cases" / "GL401" / "bad_ddp_only_when_distributed_flag.py"


def test_gl401_fix_of_a_model_wrapped_only_when_distributed_trains_in_one_process():
    outcome = fix_source(CASE.read_text(), path=CASE.name, select=["GL401"])
    assert [d.code for d in outcome.fixed] == ["GL401"]
    namespace: dict = {}
    exec(compile(outcome.text, CASE.name, "exec"), namespace)

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    before = model.weight.detach().clone()
    loader = [(torch.randn(4, 3), torch.randint(0, 2, (4,))) for _ in range(8)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    args = Namespace(distributed=False, local_rank=0, accum_steps=4)
    namespace["train"](args, model, loader, optimizer, torch.nn.functional.cross_entropy)
    assert not torch.equal(model.weight, before)
