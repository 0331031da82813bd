"""`gradlint check` / `gradlint fix` on notebooks, end to end through the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def gradlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "gradlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def jupyter(tmp_path: Path) -> Path:
    shutil.copy(DATA / "jupyter_training.ipynb", tmp_path / "nb.ipynb")
    return tmp_path / "nb.ipynb"


@pytest.fixture
def colab(tmp_path: Path) -> Path:
    shutil.copy(DATA / "colab_finetune.ipynb", tmp_path / "colab.ipynb")
    return tmp_path / "colab.ipynb"


def changed_file_lines(old: bytes, new: bytes) -> tuple[list[str], list[str]]:
    old_lines, new_lines = old.decode().splitlines(), new.decode().splitlines()
    removed = [line for line in old_lines if line not in new_lines]
    added = [line for line in new_lines if line not in old_lines]
    return removed, added


def test_check_reports_cell_line_and_column(jupyter):
    result = gradlint("check", "nb.ipynb", cwd=jupyter.parent)
    assert result.returncode == 1, result.stderr
    assert "nb.ipynb:cell 7:9:9: GL201" in result.stdout
    assert "nb.ipynb:cell 7:11:13: GL301" in result.stdout
    assert "        scaler.scale(loss).backward()" in result.stdout  # excerpt of the real cell line


def test_check_json_gives_the_cell(jupyter):
    result = gradlint("check", "--format", "json", "nb.ipynb", cwd=jupyter.parent)
    found = {(d["code"], d["cell"], d["line"], d["column"]) for d in json.loads(result.stdout)}
    assert found == {("GL306", 3, 4, 10), ("GL201", 7, 9, 9), ("GL205", 7, 10, 12), ("GL301", 7, 11, 13)}


def test_colab_cell_magic_cell_is_checked(colab):
    result = gradlint("check", "colab.ipynb", cwd=colab.parent)
    assert result.returncode == 1, result.stderr
    assert "colab.ipynb:cell 7:8:9: GL201" in result.stdout


def test_fix_diff_shows_cell_hunks_and_writes_nothing(jupyter):
    before = jupyter.read_bytes()
    result = gradlint("fix", "--unsafe-fixes", "--diff", "nb.ipynb", cwd=jupyter.parent)
    assert "--- a/nb.ipynb (cell 7)\n+++ b/nb.ipynb (cell 7)\n" in result.stdout
    assert "+        scaler.scale(loss / accum_steps).backward()\n" in result.stdout
    assert "+            scaler.unscale_(optimizer)\n" in result.stdout
    assert jupyter.read_bytes() == before


def test_fix_changes_only_the_fixed_source_lines(jupyter):
    before = jupyter.read_bytes()
    result = gradlint("fix", "--unsafe-fixes", "nb.ipynb", cwd=jupyter.parent)
    assert result.returncode == 0, result.stderr
    after = jupyter.read_bytes()
    removed, added = changed_file_lines(before, after)
    assert removed == [
        '    "scaler = torch.cuda.amp.GradScaler()\\n",',
        '    "        scaler.scale(loss).backward()\\n",',
        '    "        if (step + 1) % accum_steps == 0:\\n",',
    ]
    assert added == [
        '    "scaler = torch.amp.GradScaler(\\"cuda\\")\\n",',
        '    "        scaler.scale(loss / accum_steps).backward()\\n",',
        '    "        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):\\n",',
        '    "            scaler.unscale_(optimizer)\\n",',
    ]
    assert len(after.splitlines()) == len(before.splitlines()) + 1
    nbformat.validate(nbformat.reads(after.decode(), as_version=4))
    # Clean now, and fixing again changes nothing.
    assert gradlint("check", "nb.ipynb", cwd=jupyter.parent).returncode == 0
    gradlint("fix", "--unsafe-fixes", "nb.ipynb", cwd=jupyter.parent)
    assert jupyter.read_bytes() == after


def test_fix_keeps_colab_format(colab):
    before = colab.read_bytes()
    assert gradlint("fix", "--unsafe-fixes", "colab.ipynb", cwd=colab.parent).returncode == 0
    after = colab.read_bytes()
    removed, added = changed_file_lines(before, after)
    assert removed == [
        '        "        loss.backward()\\n",',
        '        "        if (step + 1) % accumulation_steps == 0:\\n",',
    ]
    assert added == [
        '        "        (loss / accumulation_steps).backward()\\n",',
        '        "        if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_loader):\\n",',
    ]
    assert not after.endswith(b"\n") and after.count(b"\n") == before.count(b"\n")


def test_magic_lines_survive_a_fix(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_code_cell("!pip install -q torch\n%load_ext autoreload\nimport torch"),
        nbformat.v4.new_code_cell(
            "model = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\naccum = 4"
        ),
        nbformat.v4.new_markdown_cell("Training"),
        nbformat.v4.new_code_cell(
            "%%time\n"
            "for i, x in enumerate(torch.randn(16, 4)):\n"
            "    !echo step\n"
            "    loss = model(x).sum()\n"
            "    loss.backward()\n"
            "    if (i + 1) % accum == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()"
        ),
    ]
    path = tmp_path / "magic.ipynb"
    nbformat.write(nb, path)
    result = gradlint("check", "magic.ipynb", cwd=tmp_path)
    assert "magic.ipynb:cell 4:5:5: GL201" in result.stdout
    assert gradlint("fix", "--unsafe-fixes", "magic.ipynb", cwd=tmp_path).returncode == 0
    fixed = nbformat.read(path, as_version=4)
    assert fixed.cells[0].source == nb.cells[0].source
    assert fixed.cells[3].source == nb.cells[3].source.replace("    loss.backward()", "    (loss / accum).backward()")


def test_bad_and_foreign_notebooks(tmp_path):
    (tmp_path / "bad.ipynb").write_text('{"cells": [')
    r_nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ["x <- 1 %% 2"]}],
        "metadata": {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "r.ipynb").write_text(json.dumps(r_nb, indent=1))
    shutil.copy(DATA / "jupyter_training.ipynb", tmp_path / "nb.ipynb")
    result = gradlint("check", "bad.ipynb", "r.ipynb", "nb.ipynb", cwd=tmp_path)
    assert "bad.ipynb: invalid notebook JSON" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert "r.ipynb" not in result.stdout + result.stderr
    assert "nb.ipynb:cell 7:9:9: GL201" in result.stdout  # the run goes on


def test_a_cell_that_does_not_parse_is_left_out_and_the_rest_is_checked(tmp_path):
    """A Python 2 cell or tabs mixed with spaces must not cost the notebook's other cells their
    findings; no fix is made in such a notebook (its module cannot be rebuilt cell by cell)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_code_cell("import torch\nmodel = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)"),
        nbformat.v4.new_code_cell("def show(x):\n    if x:\n\tprint x\n        return x"),
        nbformat.v4.new_code_cell(
            "for i, x in enumerate(torch.randn(16, 4)):\n"
            "    loss = model(x).sum()\n"
            "    loss.backward()\n"
            "    if (i + 1) % 4 == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()"
        ),
    ]
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    before = path.read_bytes()
    result = gradlint("check", "broken.ipynb", cwd=tmp_path)
    assert "broken.ipynb:cell 3:3:5: GL201" in result.stdout, result.stdout + result.stderr
    assert "could not be checked" not in result.stdout + result.stderr
    assert "[*]" not in result.stdout
    gradlint("fix", "--unsafe-fixes", "broken.ipynb", cwd=tmp_path)
    assert path.read_bytes() == before


def test_a_half_written_cell_is_left_out_though_the_error_shows_in_the_next(tmp_path):
    """Python reports a `def` with no body at the next cell's first line; Jupyter compiles each
    cell alone, so the cell that does not parse alone is the one left out."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_code_cell("import torch\nmodel = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)"),
        nbformat.v4.new_code_cell("# TODO: the exercise\ndef log_likelihood(x, mu, var):"),
        nbformat.v4.new_code_cell(
            "for i, x in enumerate(torch.randn(16, 4)):\n"
            "    loss = model(x).sum()\n"
            "    loss.backward()\n"
            "    if (i + 1) % 4 == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()"
        ),
    ]
    path = tmp_path / "exercise.ipynb"
    nbformat.write(nb, path)
    result = gradlint("check", "exercise.ipynb", cwd=tmp_path)
    assert "exercise.ipynb:cell 3:3:5: GL201" in result.stdout, result.stdout + result.stderr
