"""Reading the files to check and writing fixed ones atomically (discovery.py finds them)."""

from __future__ import annotations

import os
import stat
import tempfile

from gradlint.sources import SourceError


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
