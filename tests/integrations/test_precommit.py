"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit (`pre-commit try-repo` on this
checkout) in a fresh git repository with a buggy training script and a buggy notebook.

pre-commit builds its own virtualenv and installs gradlint into it from the package index
(once per test run; about 15 s), so this test is slower than the others but runs everywhere
pre-commit and the index are reachable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integration_data import ACCUMULATION, CLIP_AFTER_STEP, ROOT, notebook_json

pytestmark = pytest.mark.integration

OFFLINE = (
    "Could not find a version that satisfies",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found",
)


def _git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True).returncode:
        pytest.skip("pre-commit is not installed")
    if not (ROOT / ".git").exists() or not (ROOT / ".pre-commit-hooks.yaml").is_file():
        pytest.skip("this checkout is not a git repository with .pre-commit-hooks.yaml")
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(hook: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", NO_COLOR="1")
    process = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files", "--color", "never"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )
    output = process.stdout + process.stderr
    if process.returncode not in (0, 1) or "An unexpected error has occurred" in output:
        log = home / "pre-commit.log"
        details = log.read_text() if log.is_file() else ""
        if any(marker in output + details for marker in OFFLINE):
            pytest.skip("pre-commit cannot install gradlint: the package index is not reachable")
        pytest.fail(f"pre-commit failed to run:\n{output}\n{details}")
    return process


def test_hooks_find_then_fix(tmp_path, pre_commit_home):
    repo = tmp_path / "project"
    repo.mkdir()
    fixture = ROOT / "fixtures" / "GL101" / "bad.py"
    (repo / "train.py").write_text(fixture.read_text() if fixture.is_file() else CLIP_AFTER_STEP)
    (repo / "accum.py").write_text(ACCUMULATION)
    (repo / "README.md").write_text("loss.backward() in prose is not checked\n")
    (repo / "train.ipynb").write_text(notebook_json())
    _git("init", "-q", cwd=repo)
    _git("add", ".", cwd=repo)
    _git("commit", "-q", "-m", "buggy training", cwd=repo)

    found = try_repo("gradlint", repo, pre_commit_home)
    assert found.returncode == 1, found.stdout
    assert "gradlint" in found.stdout and "Failed" in found.stdout
    assert "train.py:" in found.stdout and "GL101" in found.stdout
    assert "accum.py:" in found.stdout and "GL201" in found.stdout
    assert "README.md" not in found.stdout
    assert "train.ipynb:cell 4:3:5: GL201" in found.stdout

    # the fix hook applies safe fixes (GL101's); GL201's divides every update by N: unsafe,
    # left for the user (`args: [--unsafe-fixes]` in the hook's config)
    fixed = try_repo("gradlint-fix", repo, pre_commit_home)
    assert fixed.returncode == 1, fixed.stdout  # files were modified: pre-commit fails the commit
    assert "files were modified by this hook" in fixed.stdout
    assert "fixable with `gradlint fix --unsafe-fixes`" in fixed.stdout
    changed = _git("diff", "--name-only", cwd=repo).split()
    assert changed == ["train.py"]
    assert "(loss / accum_steps)" not in (repo / "accum.py").read_text()

    again = try_repo("gradlint", repo, pre_commit_home)
    assert again.returncode == 1, again.stdout
    assert "GL101" not in again.stdout and "accum.py:" in again.stdout and "GL201" in again.stdout


def test_excluded_files_stay_unchecked_although_pre_commit_names_them(tmp_path, pre_commit_home):
    """pre-commit passes every file by name; the hooks' --force-exclude keeps `extend-exclude`
    (gitignore-style: `legacy/*.py` covers legacy/ only, not legacy/v2/) in force."""
    repo = tmp_path / "project"
    for relative in ("train.py", "legacy/old_train.py", "legacy/v2/train.py"):
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(CLIP_AFTER_STEP)
    (repo / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["legacy/*.py"]\n')
    _new_repository(repo, "training scripts")

    found = try_repo("gradlint", repo, pre_commit_home)
    assert found.returncode == 1, found.stdout
    assert "train.py:" in found.stdout and "legacy/v2/train.py:" in found.stdout
    assert "old_train.py" not in found.stdout

    (repo / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["legacy/"]\n')
    _git("commit", "-q", "-am", "exclude all of legacy", cwd=repo)
    assert "legacy" not in try_repo("gradlint", repo, pre_commit_home).stdout


def _new_repository(folder: Path, message: str) -> None:
    """`folder` as a git repository whose one commit holds everything in it."""
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", message]):
        _git(*command, cwd=folder)
