"""`.gradlint_cache/`: unchanged files are not checked again; a change to the file, its settings
or a project module its result used makes it checked again; a broken cache is ignored."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

import gradlint.runner

TRAIN = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i, (x, y) in enumerate(loader):
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    if (i + 1) % 4 == 0 or i + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()
"""
CLEAN = TRAIN.replace("loss.backward()", "(loss / 4).backward()")


@pytest.fixture
def checked(monkeypatch) -> list[str]:
    """Paths the runner really checked (cache hits are not), in order."""
    paths: list[str] = []
    original = gradlint.runner.process

    def process(task):
        paths.append(Path(task.path).name)
        return original(task)

    monkeypatch.setattr(gradlint.runner, "process", process)
    return paths


def write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def age(*paths: Path) -> None:
    """Files last written a minute ago: their stamps are trusted (fresh ones are compared by content)."""
    for path in paths:
        past = path.stat().st_mtime - 60
        os.utime(path, (past, past))


def test_a_warm_run_reuses_results_and_reports_the_same(workdir, gradlint, checked):
    train, other = write(workdir, "train.py", TRAIN), write(workdir, "data.py", "import os\n")
    age(train, other)
    cold = gradlint("check", ".")
    assert cold.exit_code == 1 and "GL201" in cold.stdout
    assert sorted(checked) == ["data.py", "train.py"]
    checked.clear()
    warm = gradlint("check", ".")
    assert checked == [] and (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout)
    assert (workdir / ".gradlint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_touched_file_with_the_same_content_is_a_hit_and_a_changed_one_a_miss(workdir, gradlint, checked):
    train = write(workdir, "train.py", TRAIN)
    age(train)
    gradlint("check", "train.py")
    checked.clear()
    os.utime(train)  # touched: stamp differs, content the same
    assert gradlint("check", "train.py").exit_code == 1 and checked == []
    train.write_text(textwrap.dedent(CLEAN))
    run = gradlint("check", "train.py")
    assert run.exit_code == 0 and checked == ["train.py"]


def test_other_settings_are_a_miss(workdir, gradlint, checked):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "train.py")
    run = gradlint("check", "--select", "GL1", "train.py")
    assert run.exit_code == 0 and checked == ["train.py", "train.py"]


def test_no_cache_neither_reads_nor_writes(workdir, gradlint, checked):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "--no-cache", "train.py")
    assert not (workdir / ".gradlint_cache").exists()
    gradlint("check", "train.py")
    gradlint("check", "--no-cache", "train.py")
    assert checked == ["train.py"] * 3


def test_cache_dir_puts_the_cache_elsewhere(workdir, gradlint, checked):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "--cache-dir", "build/lint-cache", "train.py")
    gradlint("check", "--cache-dir", "build/lint-cache", "train.py")
    assert checked == ["train.py"]
    assert (workdir / "build/lint-cache/.gitignore").is_file() and not (workdir / ".gradlint_cache").exists()


def test_fix_reads_files_afresh(workdir, gradlint, checked):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "train.py")
    run = gradlint("fix", "--diff", "train.py")
    assert checked == ["train.py", "train.py"] and "GL201" in run.stderr


@pytest.mark.parametrize("damage", [b"{not json", b'{"format": 1, "entries": {"x": 3}}', b"[]", b"\x00\xff"])
def test_a_corrupt_results_file_is_ignored_and_rewritten(workdir, gradlint, checked, damage):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "train.py")
    [results] = (workdir / ".gradlint_cache").glob("*/results.json")
    results.write_bytes(damage)
    run = gradlint("check", "train.py")
    assert run.exit_code == 1 and "GL201" in run.stdout and run.stderr == ""
    assert checked == ["train.py", "train.py"]
    assert json.loads(results.read_bytes())["entries"]


def test_a_corrupt_entry_is_a_miss(workdir, gradlint, checked):
    age(write(workdir, "train.py", TRAIN))
    gradlint("check", "train.py")
    [results] = (workdir / ".gradlint_cache").glob("*/results.json")
    data = json.loads(results.read_bytes())
    [entry] = data["entries"].values()
    entry["diagnostics"] = [{"code": "GL201"}]
    results.write_text(json.dumps(data))
    run = gradlint("check", "train.py")
    assert run.exit_code == 1 and "GL201" in run.stdout and checked == ["train.py", "train.py"]


ENGINE = """
import torch


def train_one_epoch(model, loader, optimizer, accum_steps):
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
"""
MAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from engine import train_one_epoch

model = DDP(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    train_one_epoch(model, loader, optimizer, 4)
"""


def test_a_new_file_of_the_project_invalidates_results_that_asked_the_whole_project(workdir, gradlint, checked):
    """`engine.py` alone has no DDP model; a `main.py` added later passes one to its loop. The
    cached result of `engine.py` asked every project file who calls the loop, so it is checked
    again and GL401 appears; a file that asked nothing of the project stays a hit."""
    write(workdir, "pyproject.toml", "[project]\nname = 'demo'\n")
    engine, data = write(workdir, "engine.py", ENGINE), write(workdir, "data.py", "import os\n")
    age(engine, data)
    first = gradlint("check", "engine.py", "data.py")
    assert first.exit_code == 0 and checked == ["engine.py", "data.py"]
    age(write(workdir, "main.py", MAIN))
    second = gradlint("check", "engine.py", "data.py")
    assert second.exit_code == 1 and "engine.py:8:9: GL401" in second.stdout
    assert checked == ["engine.py", "data.py", "engine.py"]
