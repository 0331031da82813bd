"""Bad input: one clear line per file on stderr, exit 2, the run goes on, never a traceback,
never a changed file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent / "cli"))
from training_scripts import (  # noqa: E402
    ACCUM_LINE,
    ACCUM_NOT_DIVIDED,
    CLEAN,
    CLIP_AFTER_STEP,
    CLIP_LINE,
    UTILS,
)

# A training script with a syntax error on line 5 (the call is never closed).
SYNTAX_ERROR = """\
import torch
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward(
    optimizer.step()
"""


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str):
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr

    def __repr__(self) -> str:
        return f"<exit={self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}>"

    def errors(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("gradlint: error: ")]

    def codes(self) -> list[tuple[str, str, int]]:
        out = []
        for line in self.stdout.splitlines():
            parts = line.split(":")
            if len(parts) > 3 and parts[3].strip().startswith("GL"):
                out.append((parts[0], parts[3].split()[0], int(parts[1])))
        return out


def gradlint(*args: str, input: bytes | None = None) -> Result:
    from gradlint.cli import main

    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    return Result(result.exit_code, result.stdout, result.stderr)


def subprocess_gradlint(*args: str, cwd: Path, timeout: float = 300) -> Result:
    process = subprocess.run(
        [sys.executable, "-m", "gradlint", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert "Traceback" not in process.stderr and "Traceback" not in process.stdout, process.stderr
    return Result(process.returncode, process.stdout, process.stderr)


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- syntax errors ------------------------------------------------------------------------------


def test_syntax_error_is_one_line_and_the_run_goes_on(work):
    put(work, "a_broken.py", SYNTAX_ERROR)
    put(work, "b_train.py", ACCUM_NOT_DIVIDED)
    put(work, "c_train.py", CLIP_AFTER_STEP)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2, result
    assert result.errors() == [
        "gradlint: error: a_broken.py: syntax error at line 5, column 18: '(' was never closed"
    ]
    assert len(result.stderr.splitlines()) == 1
    assert result.codes() == [("b_train.py", "GL201", ACCUM_LINE), ("c_train.py", "GL101", CLIP_LINE)]


def test_syntax_error_with_exit_zero_still_exits_2(work):
    put(work, "broken.py", SYNTAX_ERROR)
    assert gradlint("check", "--exit-zero", "broken.py").exit_code == 2


def test_syntax_error_in_json_output_keeps_stdout_valid_json(work):
    import json

    put(work, "broken.py", SYNTAX_ERROR)
    put(work, "train.py", ACCUM_NOT_DIVIDED)
    result = gradlint("check", "--format", "json", ".")
    assert result.exit_code == 2
    assert [(d["path"], d["code"]) for d in json.loads(result.stdout)] == [("train.py", "GL201")]
    assert result.errors()[0].startswith("gradlint: error: broken.py: syntax error at line 5")


def test_summary_does_not_claim_success_when_a_file_failed(work):
    put(work, "broken.py", SYNTAX_ERROR)
    result = gradlint("check", "broken.py")
    assert result.exit_code == 2
    assert "All checks passed" not in result.stdout
    assert "1 file could not be checked" in result.stdout


def test_fix_leaves_a_file_with_a_syntax_error_byte_identical(work):
    data = (SYNTAX_ERROR + "\n" + ACCUM_NOT_DIVIDED.split("\n\n\n")[0] + "\n").replace("\n", "\r\n").encode()
    path = put(work, "broken.py", data)
    mtime = path.stat().st_mtime_ns
    result = gradlint("fix", "--unsafe-fixes", "broken.py")
    assert result.exit_code == 2, result
    assert path.read_bytes() == data
    assert path.stat().st_mtime_ns == mtime
    assert result.errors() == [
        "gradlint: error: broken.py: syntax error at line 5, column 18: '(' was never closed"
    ]
    assert gradlint("fix", "--unsafe-fixes", "--diff", "broken.py").stdout == ""


def test_fix_goes_on_past_a_broken_file(work):
    put(work, "a_broken.py", SYNTAX_ERROR)
    train = put(work, "b_train.py", ACCUM_NOT_DIVIDED)
    result = gradlint("fix", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert "(loss / accum).backward()" in train.read_text()
    assert "Fixed 1 issue in 1 file" in result.stderr


# Valid Python that libcst's parser refuses (no space between `)` and `for`), in the function
# the fix edits: libcst reads only the top-level statement it changes.
LIBCST_REFUSES = ("        logits = model(x)\n", "        logits = model(x)\n        pairs = [(x if i else y)for _ in range(2)]\n")


def test_code_libcst_cannot_read_keeps_its_findings_without_fixes(work):
    import json

    data = ACCUM_NOT_DIVIDED.replace(*LIBCST_REFUSES).encode()
    path = put(work, "train.py", data)
    result = gradlint("check", "--format", "json", "train.py")
    assert result.exit_code == 1 and result.errors() == [], result
    assert [(d["code"], d["fix"]) for d in json.loads(result.stdout)] == [("GL201", None)]
    fixed = gradlint("fix", "--unsafe-fixes", "train.py")
    assert fixed.exit_code == 1 and fixed.errors() == [], fixed
    assert "GL201 not fixed: libcst cannot read the code" in fixed.stderr
    assert path.read_bytes() == data


# A script downloaded from Colab or Kaggle keeps its notebook's shell escapes and magics.
COLAB_EXPORT = """\
!pip install -q timm
%matplotlib inline
import torch


def train(model, loader, optimizer, scaler):
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = model(x, y)
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
"""


def test_a_script_exported_from_a_notebook_is_checked_with_its_ipython_lines_masked(work):
    path = put(work, "colab_export.py", COLAB_EXPORT)
    result = gradlint("check", "--format", "concise", "colab_export.py")
    assert result.exit_code == 1 and result.errors() == [], result
    assert result.codes() == [("colab_export.py", "GL301", 11)]
    assert "[*]" not in result.stdout  # no fix is offered: the file is read with lines masked
    fixed = gradlint("fix", "--unsafe-fixes", "colab_export.py")
    assert "GL301 not fixed: the file holds IPython lines" in fixed.stderr
    assert path.read_text() == COLAB_EXPORT
    # a syntax error that is not IPython syntax is reported as before
    put(work, "broken_export.py", COLAB_EXPORT.replace("    for x, y in loader:", "    for x, y in loader"))
    broken = gradlint("check", "broken_export.py")
    assert broken.exit_code == 2 and broken.errors()[0].startswith("gradlint: error: broken_export.py: syntax error at line")


def test_deeply_nested_expression_is_one_line(work):
    chain = " + 0.0 * x.sum()" * 5000
    put(work, "deep.py", f"for x in loader:\n    loss = model(x){chain}\n    loss.backward()\n")
    put(work, "train.py", CLIP_AFTER_STEP)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2, result
    [error] = result.errors()
    assert error.startswith("gradlint: error: deep.py: ")
    assert result.codes() == [("train.py", "GL101", CLIP_LINE)]


# --- undecodable, binary, empty -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"import torch\n# r\xe9sum\xe9 in latin-1 without a cookie\nloss.backward()\n", ["decode", "utf-8"]),
        (b"loss.backward()\n\xff\xfe\xfd\n", ["decode"]),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00backward\x00\x00", ["binary"]),
        (b"import torch\x00\nloss.backward()\n", ["binary"]),
        (b"# -*- coding: klingon -*-\nloss.backward()\n", ["encoding", "klingon"]),
        (b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nloss.backward()\n", ["encoding"]),
    ],
    ids=["latin1-no-cookie", "invalid-utf8", "elf-binary", "nul-byte", "unknown-cookie", "bom-vs-cookie"],
)
def test_unreadable_bytes_are_one_line(work, content, words):
    put(work, "bad.py", content)
    put(work, "train.py", ACCUM_NOT_DIVIDED)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2, result
    [error] = result.errors()
    assert error.startswith("gradlint: error: bad.py: ")
    for word in words:
        assert word in error.lower()
    assert len(result.stderr.splitlines()) == 1
    assert result.codes() == [("train.py", "GL201", ACCUM_LINE)]


def test_undecodable_bytes_on_stdin(work):
    result = gradlint("check", "--stdin-filename", "train.py", input=b"loss.backward()\n\xff\n")
    assert result.exit_code == 2
    assert result.errors()[0].startswith("gradlint: error: train.py: cannot decode")


def test_fix_leaves_undecodable_and_binary_files_alone(work):
    undecodable = put(work, "a.py", b"# \xff\n" + ACCUM_NOT_DIVIDED.encode())
    binary = put(work, "b.py", b"\x00" + ACCUM_NOT_DIVIDED.encode())
    result = gradlint("fix", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert undecodable.read_bytes() == b"# \xff\n" + ACCUM_NOT_DIVIDED.encode()
    assert binary.read_bytes() == b"\x00" + ACCUM_NOT_DIVIDED.encode()
    assert len(result.errors()) == 2


def test_empty_file_is_clean(work):
    put(work, "__init__.py", "")
    put(work, "empty.py", b"")
    result = gradlint("check", "__init__.py", "empty.py")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "All checks passed (2 files).\n", "")


def test_whitespace_and_comment_only_files_are_clean(work):
    put(work, "a.py", "\n\n   \n")
    put(work, "b.py", "# loss.backward() is called in train.py\n")
    put(work, "c.py", b"\xef\xbb\xbf")
    assert gradlint("check", ".").exit_code == 0


def test_invalid_notebook_json_is_one_line(work):
    put(work, "broken.ipynb", '{"cells": [ {"cell_type": "code", "source": ["loss.backward()"]\n')
    put(work, "train.py", ACCUM_NOT_DIVIDED)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2
    [error] = result.errors()
    assert error.startswith("gradlint: error: broken.ipynb: ")
    assert result.codes() == [("train.py", "GL201", ACCUM_LINE)]


# --- files that cannot be read ------------------------------------------------------------------


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read a chmod 000 file")
@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_unreadable_file_chmod_000(work):
    locked = put(work, "locked.py", ACCUM_NOT_DIVIDED)
    put(work, "train.py", CLIP_AFTER_STEP)
    locked.chmod(0)
    try:
        result = gradlint("check", "--format", "concise", ".")
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 2
    assert result.errors() == ["gradlint: error: locked.py: cannot read: Permission denied"]
    assert result.codes() == [("train.py", "GL101", CLIP_LINE)]


def test_unreadable_file_simulated(work, monkeypatch):
    """The same as chmod 000, for runs as root: opening the file raises PermissionError."""
    locked = put(work, "locked.py", ACCUM_NOT_DIVIDED)
    put(work, "train.py", CLIP_AFTER_STEP)
    real_open = os.open

    def fake_open(file, *args, **kwargs):
        if os.path.abspath(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2, result
    assert result.errors() == ["gradlint: error: locked.py: cannot read: Permission denied"]
    assert result.codes() == [("train.py", "GL101", CLIP_LINE)]


def test_path_that_does_not_exist(work):
    put(work, "train.py", CLEAN)
    result = gradlint("check", "trian.py", "train.py", "missing_dir/")
    assert result.exit_code == 2
    assert result.errors() == [
        "gradlint: error: trian.py: no such file or directory",
        "gradlint: error: missing_dir/: no such file or directory",
    ]
    result = gradlint("fix", "--unsafe-fixes", "trian.py")
    assert result.exit_code == 2
    assert result.errors() == ["gradlint: error: trian.py: no such file or directory"]


def test_file_vanishes_between_discovery_and_reading(work, monkeypatch):
    from gradlint import cli as gl_cli
    from gradlint import discovery

    doomed = put(work, "pkg/a_tmp_train.py", ACCUM_NOT_DIVIDED)
    put(work, "pkg/b_train.py", CLIP_AFTER_STEP)

    def discover_then_delete(paths, config, **options):
        found = list(discovery.discover(paths, config, **options))
        assert "pkg/a_tmp_train.py" in found  # it was discovered...
        doomed.unlink()  # ...and an editor's atomic save removed it before gradlint read it
        return found

    monkeypatch.setattr(gl_cli, "discover", discover_then_delete)
    result = gradlint("check", "--format", "concise", "pkg")
    assert result.exit_code == 2, result
    [error] = result.errors()
    assert error.startswith("gradlint: error: pkg/a_tmp_train.py: ")
    assert "vanished" in error or "no such file" in error.lower()
    assert result.codes() == [("pkg/b_train.py", "GL101", CLIP_LINE)]


def test_broken_symlink_is_one_line(work):
    put(work, "train.py", CLIP_AFTER_STEP)
    os.symlink(work / "gone.py", work / "link.py")
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2
    [error] = result.errors()
    assert error.startswith("gradlint: error: link.py: ")
    assert result.codes() == [("train.py", "GL101", CLIP_LINE)]


# --- crashes and failed writes ------------------------------------------------------------------


def test_a_crashing_rule_is_an_internal_error_for_that_file(work, monkeypatch):
    from gradlint.rules import BY_CODE

    def explode(model):
        raise KeyError("boom")

    monkeypatch.setattr(BY_CODE["GL201"], "check", explode)
    put(work, "a_train.py", ACCUM_NOT_DIVIDED)
    put(work, "b_utils.py", UTILS)
    result = gradlint("check", "--format", "concise", ".")
    assert result.exit_code == 2
    [error] = result.errors()
    assert error.startswith("gradlint: error: a_train.py: internal error")
    assert "GL201" in error


def test_a_failed_write_leaves_the_file_intact_and_no_temporary(work, monkeypatch):
    from gradlint import files as gl_files

    path = put(work, "train.py", ACCUM_NOT_DIVIDED)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", dst)

    monkeypatch.setattr(gl_files.os, "replace", refuse)
    result = gradlint("fix", "--unsafe-fixes", "train.py")
    assert result.exit_code == 2, result
    assert path.read_text(encoding="utf-8") == ACCUM_NOT_DIVIDED
    assert sorted(p.name for p in work.iterdir()) == ["train.py"]
    [error] = result.errors()
    assert error.startswith("gradlint: error: train.py: cannot write")


# --- size ---------------------------------------------------------------------------------------


def test_ten_thousand_small_files(tmp_path):
    """Many files go through the process pool; every result comes back, errors included."""
    root = tmp_path / "repo"
    for package in range(100):
        folder = root / f"pkg{package:03d}"
        folder.mkdir(parents=True)
        for module in range(100):
            (folder / f"mod{module:03d}.py").write_text(
                f'"""Module {package}.{module}."""\n\n\ndef f{module}(x):\n    return x * {module}\n'
            )
    (root / "pkg042" / "mod007.py").write_text(ACCUM_NOT_DIVIDED)
    (root / "pkg099" / "mod099.py").write_text(CLIP_AFTER_STEP)
    (root / "pkg050" / "mod000.py").write_text(SYNTAX_ERROR)
    (root / "pkg000" / "mod001.py").write_bytes(b"\x00\x01")
    start = time.perf_counter()
    result = subprocess_gradlint("check", "--format", "concise", "repo", cwd=tmp_path)
    elapsed = time.perf_counter() - start
    assert result.exit_code == 2, result
    assert result.codes() == [
        ("repo/pkg042/mod007.py", "GL201", ACCUM_LINE),
        ("repo/pkg099/mod099.py", "GL101", CLIP_LINE),
    ]
    assert sorted(result.errors()) == [
        "gradlint: error: repo/pkg000/mod001.py: binary file (contains NUL bytes), not Python source",
        "gradlint: error: repo/pkg050/mod000.py: syntax error at line 5, column 18: '(' was never closed",
    ]
    assert result.stdout.splitlines()[-1] == (
        "Found 2 errors (1 fixable with `gradlint fix`; 1 more fixable with `gradlint fix --unsafe-fixes`); "
        "2 files could not be checked."
    )
    assert elapsed < 120, f"10,000 small files took {elapsed:.1f}s"


def _big_module(lines_before: int) -> tuple[str, int]:
    """An ordinary big module (helpers, classes) with a training loop at the end; returns the
    source and the line of its GL201 backward()."""
    chunks, count, index = ["import torch\nfrom torch import nn\n\n\n"], 4, 0
    while count < lines_before:
        chunk = (
            f"class Block{index}(nn.Module):\n"
            f"    def __init__(self, width={index % 97 + 1}):\n"
            f"        super().__init__()\n"
            f"        self.proj = nn.Linear(width, width)\n"
            f"\n"
            f"    def forward(self, x):\n"
            f"        return torch.relu(self.proj(x)) + x * {index}\n"
            f"\n"
            f"\n"
        )
        chunks.append(chunk)
        count += chunk.count("\n")
        index += 1
    loop = (
        "def train(model, loader, optimizer, accum=8):\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        loss = nn.functional.mse_loss(model(x), y)\n"
        "        loss.backward()\n"
        "        if (step + 1) % accum == 0 or step + 1 == len(loader):\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
    )
    chunks.append(loop)
    return "".join(chunks), count + 4


def test_fifty_thousand_line_file_with_a_bug_near_the_end(work):
    source, line = _big_module(50_000)
    assert source.count("\n") >= 50_000
    put(work, "models.py", source)
    result = gradlint("check", "--format", "concise", "models.py")
    assert result.exit_code == 1, result
    assert result.codes() == [("models.py", "GL201", line)]
    assert result.stdout.startswith(f"models.py:{line}:9: GL201")


def test_big_file_fix_lands_on_the_right_line(work):
    # 2,000 lines keep the suite quick; the 50,000-line check is the test above
    source, line = _big_module(2_000)
    path = put(work, "models.py", source)
    result = gradlint("fix", "--unsafe-fixes", "models.py")
    assert result.exit_code == 0, result
    fixed = path.read_text()
    assert fixed.splitlines()[line - 1] == "        (loss / accum).backward()"
    assert fixed.replace("(loss / accum).backward()", "loss.backward()") == source
