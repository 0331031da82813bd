"""Fixes you can trust (issue 8): one run fixes everything, every file kind is handled, and the
reports say exactly what was done. Each test reproduces a defect found by trying gradlint as a
user would and by fuzzing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.fixer import fix_source
from gradlint.linter import check_source

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent / "cli"))
from training_scripts import ACCUM_NOT_DIVIDED, CLEAN, CLIP_AFTER_STEP, TWO_BUGS  # noqa: E402

HEADER = '''\
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
loader = [(torch.randn(4, 8), torch.randint(0, 2, (4,))) for _ in range(16)]
'''

ACCUM_LOOP = '''
for i, (x, y) in enumerate(loader):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()
'''

ZERO_GRAD_LOOP = '''
for i, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        optimizer.step()
'''

CLIP_LOOP = '''
def train_{n}():
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
'''

NO_SYNC_TWICE = HEADER + '''
model = DDP(model)
for i, (x, y) in enumerate(loader):
    with model.no_sync():
        loss = nn.functional.cross_entropy(model(x), y) / accum
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    with model.no_sync():
        loss = nn.functional.cross_entropy(model(x), y) / accum
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.zero_grad()
'''

# the clip shares its line with the step: the fix (move the clip) cannot be made
CLIP_ON_THE_STEP_LINE = '''\
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.zero_grad()
'''


def gradlint(*args: str, input: bytes | None = None, env: dict | None = None):
    from gradlint.cli import main

    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=True, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes_left(text: str) -> list[str]:
    return [d.code for d in check_source(text, "train.py")]


# --- one run fixes everything -----------------------------------------------------------------


def test_two_loops_with_the_same_backward_line_are_both_fixed_in_one_run():
    outcome = fix_source(HEADER + ACCUM_LOOP + ACCUM_LOOP, unsafe=True)
    assert [d.code for d in outcome.fixed] == ["GL201", "GL201"]
    assert outcome.remaining == [] and codes_left(outcome.text) == []
    assert outcome.text.count("(loss / accum).backward()") == 2


def test_three_identical_zero_grad_lines_are_fixed_in_one_run():
    outcome = fix_source(HEADER + ZERO_GRAD_LOOP * 3)
    assert [d.code for d in outcome.fixed] == ["GL202"] * 3
    assert outcome.remaining == [] and codes_left(outcome.text) == []


def test_sixty_findings_in_one_file_are_fixed_in_one_run():
    source = HEADER + "".join(CLIP_LOOP.format(n=n) for n in range(60))
    assert codes_left(source) == ["GL101"] * 60
    outcome = fix_source(source)
    assert len(outcome.fixed) == 60 and outcome.remaining == [] and not outcome.failures
    assert codes_left(outcome.text) == []


def test_two_identical_clips_under_no_sync_are_both_moved():
    outcome = fix_source(NO_SYNC_TWICE)
    assert [d.code for d in outcome.fixed] == ["GL101", "GL101"]
    assert outcome.remaining == [] and codes_left(outcome.text) == []


def test_fix_of_many_identical_loops_through_the_cli_needs_one_run(work):
    path = work / "train.py"
    path.write_text(HEADER + ACCUM_LOOP * 2 + ZERO_GRAD_LOOP * 3)
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run.output
    assert run.stderr.splitlines()[-1] == "Fixed 5 issues in 1 file; 0 remaining."
    assert gradlint("check", "train.py").exit_code == 0


# --- applicability ----------------------------------------------------------------------------


def test_gl201_fix_is_unsafe_and_reports_carry_it(work):
    (work / "train.py").write_text(TWO_BUGS)
    items = json.loads(gradlint("check", "--format", "json", "train.py").stdout)
    assert {i["code"]: i["fix"]["applicability"] for i in items} == {"GL201": "unsafe", "GL101": "safe"}
    sarif = json.loads(gradlint("check", "--format", "sarif", "train.py").stdout)
    props = {r["ruleId"]: r["properties"]["applicability"] for r in sarif["runs"][0]["results"]}
    assert props == {"GL201": "unsafe", "GL101": "safe"}
    lsp = json.loads(gradlint("check", "--format", "lsp", "train.py").stdout)
    (diagnostics,) = lsp.values()
    assert {d["code"]: d["data"]["fix"]["applicability"] for d in diagnostics} == {"GL201": "unsafe", "GL101": "safe"}


def test_star_only_for_fixes_that_fix_applies(work):
    (work / "refused.py").write_text(CLIP_ON_THE_STEP_LINE)
    (work / "train.py").write_text(TWO_BUGS)
    run = gradlint("check", "--format", "concise", "refused.py", "train.py")
    lines = run.stdout.splitlines()
    assert [line.split(": ")[1].split(" ", 1)[0] for line in lines[:-1]] == ["GL101", "GL201", "GL101"]
    marks = {(line.split(":")[0], line.split(": ")[1][:9]) for line in lines[:-1]}
    # refused.py's fix cannot be made; GL201's needs --unsafe-fixes; only train.py's GL101 gets [*]
    assert marks == {("refused.py", "GL101 `to"), ("train.py", "GL201 `lo"), ("train.py", "GL101 [*]")}
    items = json.loads(gradlint("check", "--format", "json", "refused.py").stdout)
    assert items[0]["fix"] is None
    fix = gradlint("fix", "refused.py")
    assert "Not fixed: refused.py:8: GL101 not fixed: no statement starts at line 8, column 23" in fix.stderr
    assert fix.stderr.splitlines()[-1] == "Fixed 0 issues in 0 files; 1 remaining."


def test_unfixable_and_fixable_config_keys(work):
    (work / "pyproject.toml").write_text('[tool.gradlint]\nunfixable = ["GL101"]\n')
    path = work / "train.py"
    path.write_text(TWO_BUGS)
    check = gradlint("check", "--format", "json", "train.py")
    assert {i["code"]: i["fix"] is None for i in json.loads(check.stdout)} == {"GL101": True, "GL201": False}
    gradlint("fix", "--unsafe-fixes", "train.py")
    assert codes_left(path.read_text()) == ["GL101"]
    (work / "pyproject.toml").write_text('[tool.gradlint]\nfixable = ["GL1"]\n')
    path.write_text(TWO_BUGS)
    gradlint("fix", "--unsafe-fixes", "train.py")
    assert codes_left(path.read_text()) == ["GL201"]


# --- reporters format results, never read files -----------------------------------------------


def test_sarif_with_stdin_filename_carries_the_fixes(work):
    run = gradlint("check", "--format", "sarif", "--stdin-filename", "train.py", input=CLIP_AFTER_STEP.encode())
    (result,) = json.loads(run.stdout)["runs"][0]["results"]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["replacements"], result


def test_reporters_never_read_the_files(work, monkeypatch):
    """The fix edits come from the run that checked the file: rendering the report after the
    file is gone still gives them."""
    from gradlint.report import render
    from gradlint.config import Config
    from gradlint.runner import Task, run

    (work / "train.py").write_text(CLIP_AFTER_STEP)
    results = run([Task("train.py", Config(), edits=True)])
    os.unlink("train.py")
    sarif = json.loads(render("sarif", results))
    assert sarif["runs"][0]["results"][0]["fixes"]
    lsp = json.loads(render("lsp", results))
    assert next(iter(lsp.values()))[0]["data"]["fix"]["edits"]
    assert json.loads(render("json", results))[0]["fix"]["edits"]


# --- files ------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
@pytest.mark.parametrize("command", [["check", "pipe.py"], ["check", "."], ["fix", "--unsafe-fixes", "."]])
def test_a_fifo_never_hangs_the_run(tmp_path, command):
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "a_train.py").write_text(ACCUM_NOT_DIVIDED)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.run(
        [sys.executable, "-m", "gradlint", *command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert process.returncode == 2, process
    assert "gradlint: error: pipe.py: is a FIFO, not a regular file" in process.stderr
    if command[0] == "fix":
        assert "(loss / accum).backward()" in (tmp_path / "a_train.py").read_text()


def test_fix_through_a_symlink_fixes_the_target_and_keeps_the_link(work):
    target = work / "real" / "train.py"
    target.parent.mkdir()
    target.write_text(CLIP_AFTER_STEP)
    (work / "link.py").symlink_to(target)
    run = gradlint("fix", "link.py")
    assert run.exit_code == 0, run.output
    assert (work / "link.py").is_symlink()
    assert codes_left(target.read_text()) == []
    assert sorted(p.name for p in target.parent.iterdir()) == ["train.py"]


def test_fix_keeps_hard_links_sharing_the_file(work):
    first = work / "train.py"
    first.write_text(CLIP_AFTER_STEP)
    os.link(first, work / "other.py")
    assert gradlint("fix", "train.py").exit_code == 0
    assert os.path.samefile(first, work / "other.py")
    assert codes_left((work / "other.py").read_text()) == []


def test_read_only_file_is_left_alone(work):
    path = work / "train.py"
    path.write_text(CLIP_AFTER_STEP)
    path.chmod(0o444)
    run = gradlint("fix", "train.py")
    assert run.exit_code == 2
    assert path.read_text() == CLIP_AFTER_STEP
    assert "gradlint: error: train.py: cannot write: file is read-only" in run.stderr
    assert "Fixed GL101" not in run.stderr
    assert run.stderr.splitlines()[0].startswith("Remaining: train.py:15:9: GL101")


def test_a_failed_write_is_never_reported_as_fixed(work, monkeypatch):
    from gradlint import files

    (work / "a.py").write_text(CLIP_AFTER_STEP)
    (work / "b.py").write_text(CLIP_AFTER_STEP)

    def refuse(src, dst):
        raise PermissionError(1, "Operation not permitted", dst)

    monkeypatch.setattr(files.os, "replace", refuse)
    run = gradlint("fix", "a.py", "b.py")
    assert run.exit_code == 2
    assert "Fixed GL101" not in run.stderr
    assert "Fixed 0 issues in 0 files; 2 remaining (2 fixable with `gradlint fix`)." in run.stderr
    assert run.stderr.count("cannot write: Operation not permitted") == 2


def fix_while(monkeypatch, path: Path, meanwhile) -> object:
    """`gradlint fix path`, with `meanwhile(path)` run by another process between the read and
    the write (simulated: just after the fixes are computed)."""
    import gradlint.fixer as fixer

    original = fixer.fix_document

    def fix_and_interfere(*args, **kwargs):
        outcome = original(*args, **kwargs)
        meanwhile(path)
        return outcome

    monkeypatch.setattr(fixer, "fix_document", fix_and_interfere)
    return gradlint("fix", path.name)


def test_a_file_changed_while_fixing_is_not_overwritten(work, monkeypatch):
    path = work / "train.py"
    path.write_text(CLIP_AFTER_STEP)
    appended = "print('appended by the editor')\n"
    run = fix_while(monkeypatch, path, lambda p: p.write_text(p.read_text() + appended))
    assert run.exit_code == 2
    assert path.read_text() == CLIP_AFTER_STEP + appended
    assert "train.py: changed while gradlint was fixing it; run again" in run.stderr
    assert "Fixed GL101" not in run.stderr


def test_a_file_deleted_while_fixing_is_not_recreated(work, monkeypatch):
    path = work / "train.py"
    path.write_text(CLIP_AFTER_STEP)
    run = fix_while(monkeypatch, path, Path.unlink)
    assert run.exit_code == 2
    assert not path.exists()
    assert "train.py: vanished while gradlint was fixing it" in run.stderr


def test_a_symlink_loop_named_on_the_command_line(work):
    os.symlink("loop.py", work / "loop.py")
    (work / "dangling.py").symlink_to(work / "nowhere.py")
    run = gradlint("check", "loop.py", "dangling.py")
    assert run.exit_code == 2
    assert "gradlint: error: loop.py: symbolic link loop" in run.stderr
    assert "gradlint: error: dangling.py: broken symbolic link" in run.stderr


def test_a_broken_sub_project_config_only_affects_its_files(work):
    (work / "good.py").write_text(CLIP_AFTER_STEP)
    sub = work / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[tool.gradlint]\nselect = 5\n")
    (sub / "train.py").write_text(CLIP_AFTER_STEP)
    run = gradlint("check", "--format", "concise", ".")
    assert run.exit_code == 2
    assert run.stdout.startswith("good.py:15:9: GL101")
    (line,) = [line for line in run.stderr.splitlines() if "pyproject.toml" in line]
    assert "select must be a list of strings" in line and "(1 file under it not checked)" in line
    fix = gradlint("fix", ".")
    assert fix.exit_code == 2
    assert codes_left((work / "good.py").read_text()) == []
    assert (sub / "train.py").read_text() == CLIP_AFTER_STEP


# --- internal errors --------------------------------------------------------------------------


def test_internal_errors_are_one_line_and_verbose_shows_the_traceback(work, monkeypatch):
    from gradlint.rules import BY_CODE

    def crash(self, model):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(type(BY_CODE["GL101"]), "check", crash)
    (work / "train.py").write_text(CLIP_AFTER_STEP)
    quiet = gradlint("check", "train.py")
    assert quiet.exit_code == 2
    assert quiet.stderr == "gradlint: error: train.py: internal error in GL101: ZeroDivisionError: boom\n"
    for args, env in ((["--verbose"], None), ([], {"GRADLINT_DEBUG": "1"})):
        loud = gradlint("check", *args, "train.py", env=env)
        assert loud.exit_code == 2
        assert "Traceback (most recent call last)" in loud.stderr and 'raise ZeroDivisionError("boom")' in loud.stderr


def test_a_crash_outside_the_files_is_one_line(work, monkeypatch):
    import gradlint.report as report

    def broken(*args, **kwargs):
        raise RuntimeError("reporter broke")

    monkeypatch.setattr(report, "render", broken)
    monkeypatch.setattr("gradlint.cli.render", broken)
    (work / "train.py").write_text(CLEAN)
    run = gradlint("check", "train.py")
    assert run.exit_code == 2
    assert run.stderr.splitlines()[0] == "gradlint: internal error: RuntimeError: reporter broke"
    assert "Traceback" in gradlint("check", "-v", "train.py").stderr


def test_a_notebook_with_the_same_loop_in_two_cells_is_fixed_in_one_run(work):
    cells = [HEADER, CLIP_LOOP.format(n=1) + "\ntrain_1()\n", CLIP_LOOP.format(n=1) + "\ntrain_1()\n"]
    notebook = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
             "source": cell.splitlines(keepends=True)}
            for i, cell in enumerate(cells)
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = work / "nb.ipynb"
    path.write_text(json.dumps(notebook, indent=1))
    run = gradlint("fix", "nb.ipynb")
    assert run.exit_code == 0, run.output
    assert run.stderr.splitlines()[-1] == "Fixed 2 issues in 1 file; 0 remaining."
    assert gradlint("check", "nb.ipynb").exit_code == 0


def test_verify_applies_unsafe_fixes_to_the_fixtures():
    from gradlint.verify.harness import autofix

    folder = ROOT / "fixtures" / "GL201"
    assert autofix((folder / "bad.py").read_text(), "GL201") == (folder / "fixed.py").read_text()


def test_a_fix_whose_own_code_does_not_parse_is_refused_not_raised():
    """A rule's bug (code spread over lines where one line is needed) must cost the fix, never
    the file's findings: the plan is refused with FixError, as any other fix that cannot be made."""
    from gradlint.fixplan import FixPlan, Position, WrapStatements
    from gradlint.transform import FixError, apply_plan

    text = "for i, b in enumerate(loader):\n    loss = model(b)\n    loss.backward()\n"
    broken = "ctx = nullcontext() if (i + 1) % n == 0\n    or i == last else model.no_sync()"
    plan = FixPlan("wrap", (WrapStatements(Position(2, 4), Position(3, 4), "with ctx:", (broken,)),), "safe")
    with pytest.raises(FixError):
        apply_plan(text, plan)


def test_gl401_and_gl205_fixes_agree_on_the_epochs_last_micro_batch():
    """GL205's fix steps on the epoch's last micro-batch: GL401's context must sync there too,
    or the ranks would step with gradients never all-reduced."""
    source = (
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "\n"
        "def train(model, loader, optimizer, accum, rank):\n"
        "    model = DDP(model, device_ids=[rank])\n"
        "    for epoch in range(3):\n"
        "        for step, (x, y) in enumerate(loader):\n"
        "            loss = torch.nn.functional.mse_loss(model(x), y) / accum\n"
        "            loss.backward()\n"
        "            if (step + 1) % accum == 0:\n"
        "                optimizer.step()\n"
        "                optimizer.zero_grad()\n"
    )
    outcome = fix_source(source, path="train.py", select=["GL401", "GL205"], unsafe=True)
    assert sorted(d.code for d in outcome.fixed) == ["GL205", "GL401"]
    assert "if (step + 1) % accum == 0 or step + 1 == len(loader) else model.no_sync()" in outcome.text
    assert "            if (step + 1) % accum == 0 or step + 1 == len(loader):\n" in outcome.text
