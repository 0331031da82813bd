"""Finding the files to check, reading them, and writing fixed ones atomically."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from gradlint.config import Config
from gradlint.sources import SourceError, is_supported

DEFAULT_EXCLUDES = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".env", "__pycache__", "build", "dist",
        "node_modules", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        "site-packages", ".eggs", ".ipynb_checkpoints", "_build", ".direnv", "__pypackages__",
    }
)


@dataclass(frozen=True)
class Missing:
    """A path the user named that is not there."""

    path: str
    reason: str


def discover(paths: Iterable[str], config_for: Callable[[str], Config]) -> Iterator[str | Missing]:
    """Files to check, in a stable order, each once. Named files are always checked; folders
    are walked, skipping the usual virtualenv/build folders and the configured excludes."""
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            found: Iterable[str] = _walk(path, config_for)
        elif os.path.exists(path):
            found = [path]
        else:
            yield Missing(path, "no such file or directory")
            continue
        for file in found:
            real = os.path.realpath(file)
            if real not in seen:
                seen.add(real)
                yield file


def _walk(root: str, config_for: Callable[[str], Config]) -> Iterator[str]:
    for directory, subdirs, files in os.walk(root):
        config = config_for(directory)
        subdirs[:] = sorted(
            d for d in subdirs
            if d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
            and not config.excluded(os.path.join(directory, d))
        )
        for name in sorted(files):
            path = os.path.join(directory, name)
            if is_supported(name) and not config.excluded(path):
                yield os.path.normpath(path) if root != "." else os.path.relpath(path)


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise SourceError("file vanished before it could be read") from None
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from None


def write_atomic(path: str, data: bytes) -> None:
    """Write through a temporary file in the same folder and rename it over `path`, keeping the
    file's mode: the file is either old or new, never half-written."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".gradlint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
