"""Which files a run checks, chosen as ruff chooses them: folders are walked skipping hidden
folders, `exclude` / `extend-exclude` and whatever git ignores; files named on the command line
are checked even when excluded, unless --force-exclude (pre-commit names every staged file)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from gradlint.config import Config
from gradlint.files import missing_reason
from gradlint.gitignore import GitIgnores
from gradlint.sources import is_supported


@dataclass(frozen=True)
class Missing:
    """A path the user named that is not there."""

    path: str
    reason: str


def discover(
    paths: Iterable[str], config_for: Callable[[str], Config], force_exclude: bool = False
) -> Iterator[str | Missing]:
    """Files to check, in a stable order, each once."""
    seen: set[str] = set()
    for path in paths:
        if not os.path.exists(path):
            yield Missing(path, missing_reason(path))
            continue
        is_dir = os.path.isdir(path)
        if force_exclude and config_for(path).excluded(path, is_dir):
            continue
        real_root = os.path.realpath(path) if is_dir else None
        for file in _walk(path, config_for) if is_dir else [path]:
            real = _real_path(file, path, real_root)
            if real not in seen:
                seen.add(real)
                yield file


def _real_path(file: str, root: str, real_root: str | None) -> str:
    """Where a file really is, to check it once. The walk does not enter linked folders, so a
    walked file that is no link itself is where its place under the real root says."""
    if real_root is None or os.path.islink(file):
        return os.path.realpath(file)
    return os.path.join(real_root, os.path.relpath(file, root))


def _walk(root: str, config_for: Callable[[str], Config]) -> Iterator[str]:
    ignores = {os.path.abspath(root): GitIgnores.above(root)}
    for directory, subdirs, files in os.walk(root):
        config = config_for(directory)
        here = os.path.abspath(directory)
        inherited = ignores.pop(here)
        if ".git" in subdirs or ".git" in files:  # a repository's root (a submodule's too): its own rules
            inherited = GitIgnores.above(here)
        git = inherited.entering(here, ".gitignore" in files) if config.respect_gitignore else GitIgnores()

        subdirs[:] = sorted(
            d for d in subdirs if not d.startswith(".") and not _skipped(os.path.join(here, d), True, config, git)
        )
        for d in subdirs:
            ignores[os.path.join(here, d)] = git
        for name in sorted(files):
            if is_supported(name) and not _skipped(os.path.join(here, name), False, config, git):
                path = os.path.join(directory, name)
                yield os.path.normpath(path) if root != "." else os.path.relpath(path)


def _skipped(absolute: str, is_dir: bool, config: Config, git: GitIgnores) -> bool:
    """Absolute paths: matching them needs no relpath."""
    return config.excluded(absolute, is_dir) or git.ignored(absolute, is_dir)
