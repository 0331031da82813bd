"""gradlint next to ruff, as the README's "Using gradlint with ruff" says: ruff deletes
`# noqa: GL...` comments unless `external = ["GL"]`, and both tools then keep the suppression."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integration_data import ACCUMULATION, ROOT

pytestmark = pytest.mark.integration
SUPPRESSED = ACCUMULATION.replace("    loss.backward()\n", "    loss.backward()  # noqa: GL201\n")


def ruff_fix(folder) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    subprocess.run([ruff, "check", "--select", "RUF100,RUF102", "--fix", "--no-cache", "."], cwd=folder,
                   capture_output=True, check=False)


def gradlint_exit(folder) -> int:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradlint", "check", "."], cwd=folder, env=env,
                          capture_output=True).returncode


def test_ruff_keeps_gradlint_suppressions_only_when_told_they_are_external(tmp_path):
    assert SUPPRESSED != ACCUMULATION
    (tmp_path / "train.py").write_text(SUPPRESSED)
    assert gradlint_exit(tmp_path) == 0
    ruff_fix(tmp_path)
    assert "# noqa: GL201" not in (tmp_path / "train.py").read_text()  # ruff removed it...
    assert gradlint_exit(tmp_path) == 1  # ...and the finding is back

    (tmp_path / "train.py").write_text(SUPPRESSED)
    (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint]\nexternal = ["GL"]\n')
    ruff_fix(tmp_path)
    assert (tmp_path / "train.py").read_text() == SUPPRESSED
    assert gradlint_exit(tmp_path) == 0
