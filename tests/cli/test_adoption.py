"""Adopting gradlint on an existing codebase: `check --add-noqa`, then GL001 (unused-suppression)
once bugs are fixed, file-level suppression, and rule names wherever codes go."""

from __future__ import annotations

import ast
import json

import pytest
from cli_helpers import write
from training_scripts import ACCUM_NOT_DIVIDED, CLIP_AFTER_STEP, TWO_BUGS

CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
# the clip of TWO_BUGS written over two lines with a backslash: no comment can follow line one
CONTINUED = TWO_BUGS.replace(CLIP, "torch.nn.utils.clip_grad_norm_(model.parameters(), \\\n                                       1.0)")
ACCUM_WITH_NOQA = ACCUM_NOT_DIVIDED.replace("        loss.backward()\n", "        loss.backward()  # noqa: E501\n")
NOTEBOOK_CELLS = [
    "import torch\nimport torch.nn.functional as F\n%matplotlib inline",
    "model = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\naccum_steps = 4",
    "for i, (x, y) in enumerate(batches):\n    loss = F.mse_loss(model(x), y)\n    loss.backward()\n"
    "    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):\n        optimizer.step()\n        optimizer.zero_grad()",
]


def notebook(cells: list[str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": cell.splitlines(keepends=True)}
                for cell in cells
            ],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
        },
        indent=1,
    ) + "\n"


@pytest.fixture
def codebase(workdir):
    write(workdir, "train.py", CONTINUED)
    write(workdir, "accum.py", ACCUM_WITH_NOQA)
    write(workdir, "explore.ipynb", notebook(NOTEBOOK_CELLS))
    return workdir


def test_add_noqa_then_check_passes(codebase, gradlint):
    added = gradlint("check", "--add-noqa", ".")
    assert added.exit_code == 0, added
    assert "Added `# noqa` for 4 findings in 3 files." in added.stdout

    train = (codebase / "train.py").read_text()
    assert "    loss.backward()  # noqa: GL201\n" in train
    # the finding is on the first line of the continued call; the comment goes where it can
    assert "model.parameters(), \\\n                                       1.0)  # noqa: GL101\n" in train
    assert "        loss.backward()  # noqa: E501, GL201\n" in (codebase / "accum.py").read_text()
    cells = json.loads((codebase / "explore.ipynb").read_text())["cells"]
    assert cells[2]["source"][2] == "    loss.backward()  # noqa: GL201\n"
    assert [c["source"] for c in cells[:2]] == [c.splitlines(keepends=True) for c in NOTEBOOK_CELLS[:2]]
    for name in ("train.py", "accum.py"):
        ast.parse((codebase / name).read_text())

    clean = gradlint("check", ".")
    assert (clean.exit_code, clean.stdout) == (0, "All checks passed (3 files).\n")
    before = {p.name: p.read_bytes() for p in codebase.iterdir() if p.is_file()}  # not .gradlint_cache/
    again = gradlint("check", "--add-noqa", ".")
    assert "Added `# noqa` for 0 findings in 0 files." in again.stdout
    assert {p.name: p.read_bytes() for p in codebase.iterdir() if p.is_file()} == before


def test_add_noqa_extends_a_gradlint_ignore_list(workdir, gradlint):
    source = TWO_BUGS.replace(f"{CLIP}\n", f"{CLIP}  # gradlint: ignore[GL202]\n")
    write(workdir, "train.py", source)
    gradlint("check", "--add-noqa", "train.py")
    assert f"{CLIP}  # gradlint: ignore[GL202, GL101]\n" in (workdir / "train.py").read_text()
    assert gradlint("check", "train.py").exit_code == 0


def test_unused_suppression_after_the_bug_is_fixed(codebase, gradlint):
    gradlint("check", "--add-noqa", ".")
    accum = codebase / "accum.py"
    accum.write_text(accum.read_text().replace("loss = F.cross_entropy(logits, y)", "loss = F.cross_entropy(logits, y) / accum"))

    assert gradlint("check", ".").exit_code == 0  # GL001 is off by default
    stale = gradlint("check", "--extend-select", "GL001", "--output-format", "concise", ".")
    assert stale.exit_code == 1
    assert stale.stdout.splitlines()[0] == (
        "accum.py:17:26: GL001 [*] Unused suppression `# noqa: E501, GL201`: GL201 reported nothing here"
    )
    assert len([line for line in stale.stdout.splitlines() if "GL001" in line]) == 1

    fixed = gradlint("fix", "--extend-select", "GL001", ".")
    assert fixed.exit_code == 0, fixed
    assert "        loss.backward()  # noqa: E501\n" in accum.read_text()
    assert gradlint("check", "--extend-select", "GL001", ".").exit_code == 0


@pytest.mark.parametrize(
    ("comment", "after"),
    [
        ("  # noqa: GL201", ""),
        ("  # gradlint: ignore", ""),
        ("  # gradlint: ignore[accumulation-without-loss-scaling]", ""),
        ("  # type: ignore  # noqa: GL201", "  # type: ignore"),
        ("  # noqa: GL201 averaged by the criterion", "  # averaged by the criterion"),
    ],
)
def test_gl001_fix_removes_only_what_is_stale(workdir, gradlint, comment, after):
    divided = ACCUM_NOT_DIVIDED.replace("loss.backward()", "(loss / accum).backward()")
    write(workdir, "train.py", divided.replace("(loss / accum).backward()\n", f"(loss / accum).backward(){comment}\n"))
    fixed = gradlint("fix", "--extend-select", "GL001", "train.py")
    assert fixed.exit_code == 0, fixed
    assert (workdir / "train.py").read_text() == divided.replace("(loss / accum).backward()\n", f"(loss / accum).backward(){after}\n")


@pytest.mark.parametrize(
    ("comment", "args"),
    [
        ("  # noqa: E501", ()),  # another tool's code
        ("  # noqa", ()),  # a bare noqa belongs to every linter
        ("  # noqa: GL201", ()),  # it does suppress something
        ("  # noqa: GL201", ("--select", "GL001")),  # ... also when GL201 is not selected
        ("  # noqa: GL201", ("--ignore", "GL201")),
        ("  # noqa: GL999", ()),  # a code this gradlint does not know
    ],
)
def test_gl001_stays_silent_when_it_cannot_tell(workdir, gradlint, comment, args):
    write(workdir, "train.py", ACCUM_NOT_DIVIDED.replace("loss.backward()\n", f"loss.backward(){comment}\n"))
    result = gradlint("check", "--extend-select", "GL001", "--output-format", "concise", *args, "train.py")
    assert "GL001" not in result.stdout


def test_gl001_reports_a_stale_file_level_suppression(workdir, gradlint):
    write(workdir, "train.py", "# gradlint: noqa[GL201]\n" + CLIP_AFTER_STEP)
    result = gradlint("check", "--extend-select", "GL001", "--output-format", "concise", "train.py")
    assert "train.py:1:1: GL001 [*] Unused suppression `# gradlint: noqa[GL201]`: GL201 reported nothing in this file" in result.stdout
    gradlint("fix", "--extend-select", "GL001", "train.py")
    assert (workdir / "train.py").read_text() == CLIP_AFTER_STEP.replace(  # the line is gone; GL101 fixed
        "        optimizer.step()\n        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n",
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n        optimizer.step()\n",
    )


def test_file_level_suppression(workdir, gradlint):
    write(workdir, "train.py", '"""Accumulation without division is intended here."""\n# gradlint: noqa[GL201]\n' + TWO_BUGS)
    result = gradlint("check", "--output-format", "concise", "train.py")
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines() if ": GL" in line] == ["GL101"]
    write(workdir, "train.py", "# gradlint: noqa\n" + TWO_BUGS)
    assert gradlint("check", "train.py").exit_code == 0


def test_a_suppression_inside_a_string_does_not_count(workdir, gradlint):
    source = ACCUM_NOT_DIVIDED.replace("        loss.backward()\n", '        loss.backward(); print("# noqa: GL201")\n')
    write(workdir, "train.py", source)
    assert gradlint("check", "train.py").exit_code == 1


def test_rule_names_wherever_codes_go(workdir, gradlint):
    write(workdir, "train.py", TWO_BUGS.replace(f"{CLIP}\n", f"{CLIP}  # gradlint: ignore[clip-after-step]\n"))
    result = gradlint("check", "--output-format", "concise", "train.py")
    assert [line.split()[1] for line in result.stdout.splitlines() if ": GL" in line] == ["GL201"]

    write(workdir, "train.py", TWO_BUGS)
    only = gradlint("check", "--output-format", "concise", "--select", "clip-after-step", "train.py")
    assert [line.split()[1] for line in only.stdout.splitlines() if ": GL" in line] == ["GL101"]
    ignored = gradlint("check", "--ignore", "clip-after-step,accumulation-without-loss-scaling", "train.py")
    assert ignored.exit_code == 0
    write(workdir, "pyproject.toml", '[tool.gradlint.per-file-ignores]\n"train.py" = ["clip-after-step"]\n')
    per_file = gradlint("check", "--output-format", "concise", "train.py")
    assert [line.split()[1] for line in per_file.stdout.splitlines() if ": GL" in line] == ["GL201"]

    unknown = gradlint("check", "--select", "clip-after-stpe", "train.py")
    assert unknown.exit_code == 2 and "clip-after-stpe" in unknown.stderr


def test_add_noqa_never_silences_gl001(workdir, gradlint):
    """A stale suppression is for GL001's fix to remove, not for another comment to hide."""
    stale = ACCUM_NOT_DIVIDED.replace("loss.backward()\n", "(loss / accum).backward()  # noqa: GL201\n")
    write(workdir, "train.py", stale)
    added = gradlint("check", "--add-noqa", "--extend-select", "GL001", "train.py")
    assert added.exit_code == 0 and "for 0 findings" in added.stdout
    assert (workdir / "train.py").read_text() == stale
