"""`python -m gradlint` in a real process: pipes (no colour), exit codes, stdin bytes, imports."""

from __future__ import annotations

import json
import subprocess
import sys

from cli_helpers import run_module, write
from training_scripts import (
    ACCUM_FIXED_LINE,
    ACCUM_LINE,
    ACCUM_NOT_DIVIDED,
    CLEAN,
    CLIP_AFTER_STEP,
    CLIP_COL,
    CLIP_LINE,
)


def test_check_in_a_subprocess_is_plain_text_on_a_pipe(tmp_path):
    write(tmp_path, "train.py", CLIP_AFTER_STEP)
    run = run_module("check", "train.py", cwd=tmp_path)
    assert run.exit_code == 1, run
    assert "\x1b[" not in run.stdout  # TERM says colour, but stdout is a pipe
    first = run.stdout.splitlines()[0]
    assert first.startswith(f"train.py:{CLIP_LINE}:{CLIP_COL}: GL101 [*] ")
    assert run.stdout.endswith("Found 1 error (1 fixable with `gradlint fix`).\n")
    assert run.stderr == ""


def test_clean_check_in_a_subprocess_exits_0(tmp_path):
    write(tmp_path, "train.py", CLEAN)
    run = run_module("check", cwd=tmp_path)
    assert (run.exit_code, run.stdout, run.stderr) == (0, "All checks passed (1 file).\n", "")


def test_usage_error_in_a_subprocess_exits_2(tmp_path):
    write(tmp_path, "train.py", CLEAN)
    run = run_module("check", "--select", "GL999", "train.py", cwd=tmp_path)
    assert run.exit_code == 2, run
    assert "GL999" in run.stderr
    assert "Traceback" not in run.stderr


def test_json_in_a_subprocess(tmp_path):
    write(tmp_path, "a/train.py", ACCUM_NOT_DIVIDED)
    write(tmp_path, "b/train.py", CLIP_AFTER_STEP)
    run = run_module("check", "--format", "json", ".", cwd=tmp_path)
    assert run.exit_code == 1, run
    data = json.loads(run.stdout)
    assert sorted((d["path"], d["code"], d["line"]) for d in data) == [
        ("a/train.py", "GL201", ACCUM_LINE),
        ("b/train.py", "GL101", CLIP_LINE),
    ]


def test_fix_stdin_in_a_subprocess_prints_exactly_the_fixed_bytes(tmp_path):
    source = ACCUM_NOT_DIVIDED.replace("\n", "\r\n").encode()
    run = run_module("fix", "--unsafe-fixes", "--stdin-filename", "train.py", cwd=tmp_path, input=source)
    assert run.exit_code == 0, run
    expected = ACCUM_NOT_DIVIDED.replace("        loss.backward()\n", ACCUM_FIXED_LINE + "\n")
    assert run.stdout_bytes == expected.replace("\n", "\r\n").encode()
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "train.py").exists()


def test_check_stdin_in_a_subprocess(tmp_path):
    run = run_module(
        "check", "--format", "concise", "--stdin-filename", "pkg/train.py",
        cwd=tmp_path, input=CLIP_AFTER_STEP.encode(),
    )
    assert run.exit_code == 1, run
    assert run.stdout.startswith(f"pkg/train.py:{CLIP_LINE}:{CLIP_COL}: GL101")


def test_version(tmp_path):
    run = run_module("--version", cwd=tmp_path)
    assert run.exit_code == 0
    from gradlint import __version__

    assert __version__ in run.stdout


def test_output_file_in_a_missing_folder_no_traceback(tmp_path):
    write(tmp_path, "train.py", CLIP_AFTER_STEP)
    run = run_module("check", "-o", "out/report.txt", "train.py", cwd=tmp_path)
    assert "Traceback" not in run.stderr, run
    assert run.exit_code == 2


def test_check_imports_neither_torch_nor_rich_nor_libcst(tmp_path):
    """DESIGN §6: lint never imports torch; rich only on a terminal; libcst only where fix
    edits are reported (JSON, SARIF, LSP formats) for a file with a fixable finding."""
    write(tmp_path, "train.py", CLEAN)
    write(tmp_path, "accum.py", ACCUM_NOT_DIVIDED)
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in ('torch', 'rich', 'libcst', 'pygls')"
        " if m in sys.modules), file=sys.stderr))\n"
        "from gradlint.cli import main\n"
        "main(['check', *sys.argv[1:]])\n"
    )

    def check(*files):
        return subprocess.run(
            [sys.executable, "-c", probe, *files], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )

    clean = check("--format", "json", "train.py")
    assert clean.returncode == 0, clean.stderr
    assert "backward()" in CLEAN and json.loads(clean.stdout) == []
    assert "LOADED []" in clean.stderr
    text = check("accum.py")
    assert text.returncode == 1 and "GL201" in text.stdout, text.stderr
    assert "LOADED []" in text.stderr
    found = check("--format", "json", "accum.py")
    assert found.returncode == 1, found.stderr
    (item,) = json.loads(found.stdout)
    assert item["code"] == "GL201" and item["fix"]["edits"]  # computed by the run that checked it
    assert "LOADED ['libcst']" in found.stderr
