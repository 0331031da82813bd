"""Plain helpers of the CLI tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


class Run:
    """What one gradlint invocation produced (in-process or subprocess)."""

    def __init__(self, exit_code: int, stdout: str, stderr: str, stdout_bytes: bytes = b""):
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr
        self.stdout_bytes = stdout_bytes

    def __repr__(self) -> str:
        return f"<Run exit={self.exit_code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}>"


def run_module(*args: str, cwd: Path, input: bytes | None = None, timeout: float = 120) -> Run:
    """`python -m gradlint ARGS` in a real process, stdout and stderr being pipes."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PY_COLORS")}
    env["TERM"] = "xterm-256color"  # a colour terminal type: colour must still be off on a pipe
    process = subprocess.run(
        [sys.executable, "-m", "gradlint", *args],
        cwd=cwd, input=input, capture_output=True, timeout=timeout, env=env,
    )
    return Run(
        process.returncode,
        process.stdout.decode("utf-8", "replace"),
        process.stderr.decode("utf-8", "replace"),
        process.stdout,
    )


def write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
