"""Which files `gradlint check` reads, as a user meets it: a git repository with ignored,
excluded and hidden files, checked by a real `python -m gradlint` process."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from cli_helpers import run_module, write
from training_scripts import CLIP_AFTER_STEP

# path -> checked when the repository's root is walked?
LAYOUT = {
    "train.py": True,
    "src/pkg/loop.py": True,
    "runs/debug_train.py": False,  # .gitignore: runs/
    "src/pkg/model_gen.py": False,  # .gitignore: *_gen.py
    "src/pkg/keep_gen.py": True,  # src/pkg/.gitignore re-includes it: !keep_gen.py
    "notes/local.py": False,  # .git/info/exclude: notes/
    "scratch_train.py": False,  # the global excludes file: scratch_*.py
    ".cache/train.py": False,  # a hidden folder
    "venv/lib/train.py": False,  # the default exclude list
    "legacy/old.py": False,  # extend-exclude: legacy/*.py
    "legacy/v2/train.py": True,  # ... `*` does not cross `/`
}


def git(*args: str, cwd) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    home = tmp_path / "home"
    write(home, ".gitconfig", "[user]\n\tname = t\n[core]\n\texcludesFile = ~/global-ignore\n")
    write(home, "global-ignore", "scratch_*.py\n")
    for name in ("HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    root = tmp_path / "project"
    for relative in LAYOUT:
        write(root, relative, CLIP_AFTER_STEP)
    write(root, ".gitignore", "runs/\n*_gen.py\n")
    write(root, "src/pkg/.gitignore", "!keep_gen.py\n")
    write(root, "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["legacy/*.py"]\n')
    git("init", "-q", cwd=root)
    write(root, ".git/info/exclude", "notes/\n")
    return root


def listed(result) -> set[str]:
    return {line.replace(os.sep, "/") for line in result.stdout.splitlines()}


def test_walk_skips_ignored_hidden_and_excluded_files(repo):
    result = run_module("check", "--show-files", cwd=repo)
    assert result.exit_code == 0, result
    assert listed(result) == {path for path, checked in LAYOUT.items() if checked}
    check = run_module("check", "--output-format", "concise", cwd=repo)
    assert check.exit_code == 1
    reported = {line.split(":")[0] for line in check.stdout.splitlines() if ": GL101" in line}
    assert reported == {path for path, checked in LAYOUT.items() if checked}


def test_walking_a_subfolder_still_obeys_the_gitignore_files_above_it(repo):
    result = run_module("check", "--show-files", "src", cwd=repo)
    assert listed(result) == {"src/pkg/loop.py", "src/pkg/keep_gen.py"}


def test_named_files_are_checked_unless_force_exclude(repo):
    named = run_module("check", "--output-format", "concise", "legacy/old.py", "runs/debug_train.py", cwd=repo)
    assert named.exit_code == 1
    assert "legacy/old.py:15:9: GL101" in named.stdout and "runs/debug_train.py:15:9: GL101" in named.stdout
    forced = run_module("check", "--force-exclude", "--show-files", "legacy/old.py", "train.py", cwd=repo)
    assert listed(forced) == {"train.py"}


def test_respect_gitignore_false_walks_ignored_folders(repo):
    write(repo, "pyproject.toml", "[tool.gradlint]\nrespect-gitignore = false\n")
    result = run_module("check", "--show-files", cwd=repo)
    assert {"runs/debug_train.py", "notes/local.py", "scratch_train.py", "legacy/old.py"} <= listed(result)
    assert ".cache/train.py" not in listed(result)


def test_exclude_replaces_the_default_list_and_extend_exclude_adds(repo):
    write(repo, "pyproject.toml", '[tool.gradlint]\nexclude = ["legacy/"]\n')
    assert "venv/lib/train.py" in listed(run_module("check", "--show-files", cwd=repo))
    write(repo, "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["legacy/"]\n')
    files = listed(run_module("check", "--show-files", cwd=repo))
    assert "venv/lib/train.py" not in files and "legacy/v2/train.py" not in files


def test_a_nested_repository_follows_its_own_ignore_rules(repo):
    """A vendored checkout or submodule: the outer `*_gen.py` stops at its root, its own
    .gitignore and .git/info/exclude apply inside it."""
    inner = repo / "third_party" / "lib"
    for relative in ("model_gen.py", "tmp/scratch.py", "cache/x.py", "train.py"):
        write(inner, relative, CLIP_AFTER_STEP)
    git("init", "-q", cwd=inner)
    write(inner, ".gitignore", "tmp/\n")
    write(inner, ".git/info/exclude", "cache/\n")
    files = listed(run_module("check", "--show-files", "third_party", cwd=repo))
    assert files == {"third_party/lib/model_gen.py", "third_party/lib/train.py"}


def test_an_invalid_gitignore_line_is_skipped_as_git_skips_it(repo):
    write(repo, ".gitignore", "runs/\n!\n[z-a].py\n*_gen.py\n")
    files = listed(run_module("check", "--show-files", cwd=repo))
    assert "runs/debug_train.py" not in files and "src/pkg/model_gen.py" not in files


def test_an_invalid_exclude_pattern_is_a_config_error(repo):
    write(repo, "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["legacy/", "[z-a]"]\n')
    result = run_module("check", cwd=repo)
    assert result.exit_code == 2
    assert "extend-exclude: invalid pattern(s): [z-a]" in result.stderr
    assert "Traceback" not in result.stderr
