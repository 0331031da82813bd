"""Path patterns with gitignore's rules (the `pathspec` library, as black uses): `*` stays within
one folder, `**` crosses folders, a pattern without a `/` matches at any depth, one with a `/`
is anchored where it was written, a trailing `/` matches folders only, `!` re-includes."""

from __future__ import annotations

import os
from typing import Iterable


class PathPatterns:
    """Patterns compiled on first use (pathspec is imported only when there is a pattern)."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = tuple(patterns)
        self._spec = None

    def check(self, relative: str, is_dir: bool = False) -> bool | None:
        """True when the last matching pattern includes `relative` (a `/`-separated path
        relative to where the patterns apply), False when it is a `!` pattern, None: no match."""
        if not self.patterns:
            return None
        if self._spec is None:
            try:
                self._spec = _compile(list(self.patterns))
            except Exception:  # an invalid line: git skips it, so do we
                skipped = invalid(self.patterns)
                self._spec = _compile([p for p in self.patterns if p not in skipped])
        return self._spec.check_file(relative + "/" if is_dir else relative).include

    def matches(self, relative: str, is_dir: bool = False) -> bool:
        return bool(self.check(relative, is_dir))


def invalid(patterns: Iterable[str]) -> list[str]:
    """The patterns that are not valid gitignore patterns (git skips them; config reports them)."""
    bad = []
    for pattern in patterns:
        try:
            _compile([pattern])
        except Exception:  # pathspec raises its own errors and re's for a bad character range
            bad.append(pattern)
    return bad


def _compile(patterns: list[str]):
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(patterns)


def within(folder: str, path: str) -> str | None:
    """`path` relative to `folder` with `/` separators (both absolute and normalized), else None."""
    if path == folder:
        return "."
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    if not path.startswith(prefix):
        return None
    relative = path[len(prefix) :]
    return relative if os.sep == "/" else relative.replace(os.sep, "/")
