"""Checking many files in a process pool: each project's files are checked together (a worker
builds its own model of every project it meets), and results come back in the order asked."""

from __future__ import annotations

import textwrap
from pathlib import Path

from gradlint import runner
from gradlint.config import Config
from gradlint.runner import Task

ENGINE = """
import torch


def train_one_epoch(model, loader, optimizer, accum_iter=4):
    for step, (images, labels) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        if (step + 1) % accum_iter == 0:
            optimizer.step()
            optimizer.zero_grad()
"""

MAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel

from engine import train_one_epoch


def main(model, loader, rank):
    model = DistributedDataParallel(model, device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(10):
        train_one_epoch(model, loader, optimizer)
"""


def _project(root: Path, files: dict[str, str]) -> None:
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))


def _tasks(paths: list[Path]) -> list[Task]:
    return [Task(str(path), Config()) for path in paths]


def test_batches_keep_a_project_together_and_cut_a_big_one_into_neighbouring_runs(tmp_path):
    _project(tmp_path / "small", {f"s{i}.py": "x = 1\n" for i in range(3)})
    _project(tmp_path / "big", {f"b{i:02}.py": "x = 1\n" for i in range(20)})
    paths = sorted((tmp_path / "big").glob("*.py"))[::-1] + sorted((tmp_path / "small").glob("*.py"))
    work = _tasks(paths)

    batches = runner._batches(work, workers=2)

    assert sorted(i for batch in batches for i in batch) == list(range(len(work)))  # each file once
    roots = [{Path(work[i].path).parent for i in batch} for batch in batches]
    assert all(len(found) == 1 for found in roots)  # no batch mixes projects
    small = [batch for batch, found in zip(batches, roots) if found == {tmp_path / "small"}]
    assert len(small) == 1 and len(small[0]) == 3  # a project under a worker's share is one batch
    big = [[Path(work[i].path).name for i in batch] for batch, found in zip(batches, roots) if found == {tmp_path / "big"}]
    assert len(big) > 1 and all(names == sorted(names) for names in big)  # runs of neighbouring files
    assert sorted(n for names in big for n in names) == [f"b{i:02}.py" for i in range(20)]
    assert [len(b) for b in batches] == sorted((len(b) for b in batches), reverse=True)


def test_a_pooled_run_finds_what_a_sequential_one_does_in_the_order_asked(tmp_path, monkeypatch):
    for name in ("alpha", "beta"):
        _project(tmp_path / name, {"engine.py": ENGINE, "main.py": MAIN, **{f"m{i}.py": "x = 1\n" for i in range(6)}})
    paths = sorted(tmp_path.glob("*/*.py"), key=lambda p: (p.name, p.parent.name))  # projects interleaved
    work = _tasks(paths)

    sequential = runner._run(work, jobs=1)
    monkeypatch.setattr(runner, "POOL_THRESHOLD", 2)
    pooled = runner._run(work, jobs=2)

    assert [r.path for r in pooled] == [str(p) for p in paths]
    found = [(Path(r.path).parent.name, Path(r.path).name, d.code) for r in pooled for d in r.diagnostics]
    assert ("alpha", "engine.py", "GL401") in found and ("beta", "engine.py", "GL401") in found
    assert found == [(Path(r.path).parent.name, Path(r.path).name, d.code) for r in sequential for d in r.diagnostics]
