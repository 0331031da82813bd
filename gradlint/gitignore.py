"""What git ignores: `.gitignore` files, `.git/info/exclude` and the global excludes file
(`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`), with git's precedence."""

from __future__ import annotations

import os
from dataclasses import dataclass

from gradlint.patterns import PathPatterns, within


@dataclass(frozen=True)
class IgnoreFile:
    base: str  # absolute folder the patterns are relative to
    patterns: PathPatterns


class GitIgnores:
    """The ignore files that apply inside one folder, lowest precedence first."""

    def __init__(self, files: tuple[IgnoreFile, ...] = ()):
        self.files = files

    @classmethod
    def above(cls, folder: str) -> "GitIgnores":
        """For a walk that starts at `folder`: the repository's excludes and the `.gitignore`
        files from the repository's root down to (not including) `folder`."""
        folder = os.path.abspath(folder)
        root = repository_root(folder)
        if root is None:
            return cls()
        sources = (_global_excludes(root), os.path.join(root, ".git", "info", "exclude"))
        files = [IgnoreFile(root, PathPatterns(_read_lines(path))) for path in sources if path]
        ignores = cls(tuple(f for f in files if f.patterns.patterns))
        relative = os.path.relpath(os.path.dirname(folder), root) if folder != root else None
        parents = [] if relative is None else [root] + _descend(root, relative)
        for parent in parents:
            ignores = ignores.entering(parent, has_gitignore=True)
        return ignores

    def entering(self, folder: str, has_gitignore: bool) -> "GitIgnores":
        """The ignores inside `folder`, which holds a `.gitignore` file when `has_gitignore`."""
        if not has_gitignore:
            return self
        patterns = PathPatterns(_read_lines(os.path.join(folder, ".gitignore")))
        return GitIgnores((*self.files, IgnoreFile(os.path.abspath(folder), patterns))) if patterns.patterns else self

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        """Whether git ignores `path` (deeper files decide first, then info/exclude, then global)."""
        if not self.files:
            return False
        path = path if os.path.isabs(path) else os.path.abspath(path)
        for ignore_file in reversed(self.files):
            relative = within(ignore_file.base, path)
            if relative is None:
                continue
            verdict = ignore_file.patterns.check(relative, is_dir)
            if verdict is not None:
                return verdict
        return False


def repository_root(folder: str) -> str | None:
    for candidate in (folder, *_parents(folder)):
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _parents(folder: str):
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        yield parent
        folder = parent


def _descend(root: str, relative: str) -> list[str]:
    """The folders below `root` on the way to `root/relative` (inclusive)."""
    if relative in ("", "."):
        return []
    parts = relative.split(os.sep)
    return [os.path.join(root, *parts[: i + 1]) for i in range(len(parts))]


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [line.rstrip("\r\n") for line in handle]
    except OSError:  # absent or unreadable: nothing ignored by it
        return []


def _global_excludes(root: str) -> str | None:
    """core.excludesFile from the repository's, the user's or the XDG git config, else git's default."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    configs = [
        os.path.join(root, ".git", "config"),
        os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(os.path.expanduser("~"), ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]
    for config in configs:
        value = _core_excludes_file(config)
        if value:
            return os.path.expanduser(value)
    return os.path.join(xdg, "git", "ignore")


def _core_excludes_file(config: str) -> str | None:
    """`excludesFile` of the `[core]` section of one git config file (git's format: tabs,
    comments, case-insensitive names, optional quotes)."""
    section = None
    for line in _read_lines(config):
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, value = line.split("=", 1)
            if key.strip().lower() == "excludesfile":
                return value.split(" #")[0].split(" ;")[0].strip().strip('"')
    return None
