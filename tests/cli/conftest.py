"""Fixtures of the CLI tests: an empty project folder, and `gradlint` run in-process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # training_scripts.py and cli_helpers.py live next to the tests
    sys.path.insert(0, str(HERE))

from cli_helpers import Run  # noqa: E402


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """An empty project folder that is the current directory (tmp_path lives outside the
    repository, so no pyproject.toml above it has a [tool.gradlint] table)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.fixture
def gradlint():
    """Invoke the click command in-process. Any exception other than SystemExit fails the test:
    a user would have seen a traceback."""
    from gradlint.cli import main

    def invoke(*args: str, input: str | bytes | None = None) -> Run:
        result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            message = f"gradlint {' '.join(args)} raised {result.exception!r}"
            raise AssertionError(message) from result.exception
        return Run(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)

    return invoke
