"""`gradlint fix`: writing, --diff, stdin, the summary, and keeping the file's own bytes."""

from __future__ import annotations

import os
import stat
import textwrap

import pytest
from cli_helpers import write
from training_scripts import (
    ACCUM_FIXED_LINE,
    ACCUM_IN_HELPER,
    ACCUM_LINE,
    ACCUM_NOT_DIVIDED,
    CLEAN,
    CLIP_AFTER_STEP,
    TWO_BUGS,
    TWO_BUGS_FIXED,
    UTILS,
)

ACCUM_FIXED = ACCUM_NOT_DIVIDED.replace("        loss.backward()\n", ACCUM_FIXED_LINE + "\n")
CLIP_FIXED = CLIP_AFTER_STEP.replace(
    "        optimizer.step()\n        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n",
    "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n        optimizer.step()\n",
)
assert ACCUM_FIXED != ACCUM_NOT_DIVIDED and CLIP_FIXED != CLIP_AFTER_STEP


def test_fix_applies_safe_fixes_only_by_default(workdir, gradlint):
    """GL201's fix divides every update by N: unsafe (DESIGN §2.2), applied only on request."""
    path = write(workdir, "train.py", TWO_BUGS)
    run = gradlint("fix", "train.py")
    assert run.exit_code == 1, run  # the GL201 finding remains
    text = path.read_text(encoding="utf-8")
    assert "loss.backward()" in text and "(loss / accum)" not in text
    assert text.index("clip_grad_norm_") < text.index("optimizer.step()")  # GL101 (safe) fixed
    assert "Fixed GL101" in run.stderr and "Fixed GL201" not in run.stderr
    assert run.stderr.splitlines()[-1] == (
        "Fixed 1 issue in 1 file; 1 remaining (1 fixable with `gradlint fix --unsafe-fixes`)."
    )
    again = gradlint("fix", "--unsafe-fixes", "train.py")
    assert again.exit_code == 0, again
    assert path.read_text(encoding="utf-8") == TWO_BUGS_FIXED


def test_fix_writes_the_file_and_summarises_on_stderr(workdir, gradlint):
    path = write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    assert path.read_text(encoding="utf-8") == ACCUM_FIXED
    assert run.stdout == ""
    assert f"Fixed GL201 accumulation-without-loss-scaling at train.py:{ACCUM_LINE}" in run.stderr
    assert run.stderr.splitlines()[-1] == "Fixed 1 issue in 1 file; 0 remaining."
    assert gradlint("check", "train.py").exit_code == 0


def test_fix_two_bugs_in_one_loop(workdir, gradlint):
    path = write(workdir, "train.py", TWO_BUGS)
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    assert path.read_text(encoding="utf-8") == TWO_BUGS_FIXED
    assert "Fixed GL201" in run.stderr and "Fixed GL101" in run.stderr
    assert run.stderr.splitlines()[-1] == "Fixed 2 issues in 1 file; 0 remaining."


def test_fix_reports_what_remains(workdir, gradlint):
    helper = write(workdir, "helper.py", ACCUM_IN_HELPER)
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("fix", "--unsafe-fixes", "helper.py", "train.py")
    assert run.exit_code == 1, run  # a finding is left
    assert helper.read_text(encoding="utf-8") == ACCUM_IN_HELPER  # nothing to apply there
    assert (workdir / "train.py").read_text(encoding="utf-8") == CLIP_FIXED
    assert "Remaining: helper.py:13:5: GL201" in run.stderr
    assert run.stderr.splitlines()[-1] == "Fixed 1 issue in 1 file; 1 remaining."


def test_fix_respects_select(workdir, gradlint):
    path = write(workdir, "train.py", TWO_BUGS)
    run = gradlint("fix", "--unsafe-fixes", "--select", "GL2", "train.py")
    assert run.exit_code == 0, run
    text = path.read_text(encoding="utf-8")
    assert "(loss / accum).backward()" in text
    # the GL101 clip was not selected: it stays after the step
    assert text.index("optimizer.step()") < text.index("clip_grad_norm_")
    check = gradlint("check", "--format", "concise", "train.py")
    assert "GL101" in check.stdout and "GL201" not in check.stdout


def test_fix_nothing_to_do(workdir, gradlint):
    path = write(workdir, "train.py", CLEAN)
    before = path.stat().st_mtime_ns
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    assert run.stderr == "Fixed 0 issues in 0 files; 0 remaining.\n"
    assert path.read_text(encoding="utf-8") == CLEAN
    assert path.stat().st_mtime_ns == before  # not rewritten


def test_fix_quiet(workdir, gradlint):
    path = write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("fix", "--unsafe-fixes", "-q", "train.py")
    assert (run.exit_code, run.stdout, run.stderr) == (0, "", "")
    assert path.read_text(encoding="utf-8") == ACCUM_FIXED


def test_fix_directory(workdir, gradlint):
    a = write(workdir, "src/a/train.py", ACCUM_NOT_DIVIDED)
    b = write(workdir, "src/b/train.py", CLIP_AFTER_STEP)
    c = write(workdir, "src/utils.py", UTILS)
    skipped = write(workdir, ".venv/lib/train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("fix", "--unsafe-fixes")
    assert run.exit_code == 0, run
    assert a.read_text() == ACCUM_FIXED and b.read_text() == CLIP_FIXED and c.read_text() == UTILS
    assert skipped.read_text() == ACCUM_NOT_DIVIDED
    assert run.stderr.splitlines()[-1] == "Fixed 2 issues in 2 files; 0 remaining."


def test_fix_diff_prints_a_unified_diff_and_writes_nothing(workdir, gradlint):
    path = write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = path.read_bytes(), path.stat().st_mtime_ns
    run = gradlint("fix", "--unsafe-fixes", "--diff", "train.py")
    assert run.exit_code == 1, run  # there is something to fix
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    lines = run.stdout.splitlines()
    assert lines[0] == "--- a/train.py"
    assert lines[1] == "+++ b/train.py"
    assert lines[2].startswith("@@ ")
    assert [line for line in lines if line[:1] in "+-" and line[:3] not in ("---", "+++")] == [
        "-        loss.backward()",
        "+" + ACCUM_FIXED_LINE,
    ]
    assert "Would fix GL201" in run.stderr
    assert run.stderr.splitlines()[-1] == "Would fix 1 issue in 1 file; 0 remaining."
    assert not list(workdir.glob(".gradlint-*"))  # no temporary file left behind


def test_fix_diff_applied_to_the_original_gives_what_fix_writes(workdir, gradlint):
    path = write(workdir, "train.py", TWO_BUGS)
    run = gradlint("fix", "--unsafe-fixes", "--diff", "train.py")
    patched = _apply_unified_diff(TWO_BUGS, run.stdout.splitlines(keepends=True))
    assert patched == TWO_BUGS_FIXED
    assert gradlint("fix", "--unsafe-fixes", "train.py").exit_code == 0
    assert path.read_text(encoding="utf-8") == patched


def _apply_unified_diff(original: str, diff: list[str]) -> str:
    """A tiny `patch`: every context and removed line must match the original."""
    old = original.splitlines(keepends=True)
    new, position = [], 0
    assert diff[0].startswith("--- ") and diff[1].startswith("+++ ")
    for line in diff[2:]:
        if line.startswith("@@"):
            start = int(line.split()[1].split(",")[0][1:]) - 1
            new += old[position:start]
            position = start
        elif line.startswith("+"):
            new.append(line[1:])
        else:
            assert line[:1] in ("-", " ") and old[position] == line[1:], line
            if line.startswith(" "):
                new.append(old[position])
            position += 1
    return "".join(new + old[position:])


def test_fix_diff_of_a_clean_file_is_empty(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("fix", "--unsafe-fixes", "--diff", "train.py")
    assert (run.exit_code, run.stdout) == (0, "")


def test_fix_stdin_prints_the_fixed_source(workdir, gradlint):
    path = write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("fix", "--unsafe-fixes", "--stdin-filename", "train.py", input=ACCUM_NOT_DIVIDED)
    assert run.exit_code == 0, run
    assert run.stdout_bytes == ACCUM_FIXED.encode()
    assert path.read_text(encoding="utf-8") == ACCUM_NOT_DIVIDED  # stdin mode never writes
    assert "GL201" in run.stderr  # the summary goes to stderr, never into the source


def test_fix_stdin_with_nothing_to_fix_echoes_the_source(workdir, gradlint):
    run = gradlint("fix", "--unsafe-fixes", "--stdin-filename", "train.py", input=CLEAN)
    assert run.exit_code == 0, run
    assert run.stdout_bytes == CLEAN.encode()


def test_fix_stdin_diff(workdir, gradlint):
    run = gradlint("fix", "--unsafe-fixes", "--diff", "--stdin-filename", "train.py", input=ACCUM_NOT_DIVIDED)
    assert run.exit_code == 1
    assert "+" + ACCUM_FIXED_LINE in run.stdout.splitlines()
    assert not (workdir / "train.py").exists()


# --- the file's own bytes are kept -----------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_fix_keeps_the_file_mode(workdir, gradlint):
    path = write(workdir, "train.py", "#!/usr/bin/env python\n" + ACCUM_NOT_DIVIDED)
    path.chmod(0o755)
    assert gradlint("fix", "--unsafe-fixes", "train.py").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert "(loss / accum).backward()" in path.read_text()


def test_fix_keeps_crlf_newlines(workdir, gradlint):
    path = workdir / "train.py"
    path.write_bytes(TWO_BUGS.replace("\n", "\r\n").encode())
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    data = path.read_bytes()
    assert data == TWO_BUGS_FIXED.replace("\n", "\r\n").encode()
    assert data.count(b"\n") == data.count(b"\r\n")


def test_fix_keeps_a_utf8_bom(workdir, gradlint):
    path = workdir / "train.py"
    text = "# Entraînement du modèle\n" + ACCUM_NOT_DIVIDED
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    assert path.read_bytes() == b"\xef\xbb\xbf" + ("# Entraînement du modèle\n" + ACCUM_FIXED).encode("utf-8")


def test_fix_keeps_a_latin1_coding_cookie(workdir, gradlint):
    path = workdir / "train.py"
    header = "# -*- coding: latin-1 -*-\n# Modèle entraîné à l'école\n"
    path.write_bytes((header + ACCUM_NOT_DIVIDED).encode("latin-1"))
    run = gradlint("fix", "--unsafe-fixes", "train.py")
    assert run.exit_code == 0, run
    assert path.read_bytes() == (header + ACCUM_FIXED).encode("latin-1")


def test_check_latin1_file_reports_the_right_line(workdir, gradlint):
    header = "# -*- coding: latin-1 -*-\n# Modèle entraîné à l'école\n"
    (workdir / "train.py").write_bytes((header + ACCUM_NOT_DIVIDED).encode("latin-1"))
    run = gradlint("check", "--format", "concise", "train.py")
    assert run.stdout.startswith(f"train.py:{ACCUM_LINE + 2}:9: GL201")


@pytest.mark.parametrize(
    "source",
    [ACCUM_NOT_DIVIDED, CLIP_AFTER_STEP, TWO_BUGS, ACCUM_IN_HELPER],
    ids=["accum", "clip", "two-bugs", "unfixable"],
)
def test_fixing_twice_equals_fixing_once(workdir, gradlint, source):
    path = write(workdir, "train.py", source)
    gradlint("fix", "--unsafe-fixes", "train.py")
    once = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    second = gradlint("fix", "--unsafe-fixes", "train.py")
    assert path.read_bytes() == once
    assert path.stat().st_mtime_ns == mtime
    assert "Fixed 0 issues in 0 files" in second.stderr


def test_fix_stdin_with_a_syntax_error_echoes_the_source(workdir, gradlint):
    broken = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward(\n"
    run = gradlint("fix", "--unsafe-fixes", "--stdin-filename", "train.py", input=broken)
    assert run.exit_code == 2
    assert "syntax error" in run.stderr
    assert run.stdout == broken


def test_a_fix_that_mends_two_findings_counts_both(workdir, gradlint):
    """One import rewrite mends both deprecated torch.cuda.amp names: both count as fixed."""
    write(workdir, "amp_loop.py", textwrap.dedent("""
        import torch
        from torch.cuda.amp import GradScaler, autocast


        def train(model, loader, optimizer):
            scaler = GradScaler()
            for x, y in loader:
                optimizer.zero_grad()
                with autocast():
                    loss = model(x, y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
    """).lstrip())
    run = gradlint("fix", "--diff", "amp_loop.py")
    assert "from torch.amp import GradScaler, autocast" in run.stdout
    assert "Would fix GL306 deprecated-cuda-amp at amp_loop.py:6:14" in run.stderr
    assert "Would fix GL306 deprecated-cuda-amp at amp_loop.py:9:14" in run.stderr
    assert run.stderr.splitlines()[-1] == "Would fix 2 issues in 1 file; 0 remaining.", run.stderr
