"""Reading the files to check (regular files only) and writing fixed ones safely: atomically,
through symlinks, never over a read-only or changed file (discovery.py finds them)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile

from gradlint.sources import SourceError

KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device", stat.S_IFDIR: "a directory"}


class WriteError(Exception):
    """A fixed file that was not written; the message is one line for the user."""


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file (through symlinks). Anything else is refused before it is
    opened for reading, so a FIFO or a device never blocks the run."""
    try:
        _require_regular(os.stat(path))
        # O_NONBLOCK: a FIFO swapped in after the stat opens at once instead of waiting
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as handle:
            _require_regular(os.fstat(handle.fileno()))
            return handle.read()
    except FileNotFoundError:
        raise SourceError("file vanished before it could be read") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SourceError("cannot read: symbolic link loop") from None
        raise SourceError(f"cannot read: {error.strerror or error}") from None


def _require_regular(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise SourceError(f"is {kind}, not a regular file" if kind.startswith("a ") else kind)


def missing_reason(path: str) -> str:
    """Why a named path cannot be checked: gone, a broken symlink, or a symlink loop."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic link loop"
        if os.path.islink(path):
            return "broken symbolic link (its target does not exist)"
        if error.errno != errno.ENOENT:
            return f"cannot read: {error.strerror or error}"
    return "no such file or directory"


def write_fixed(path: str, data: bytes, original: bytes) -> None:
    """Write the fixed bytes of `path`, which held `original` when it was read.

    Symlinks are followed (the link stays a link, its target gets the fix). A file with a single
    link is replaced atomically (temporary file + rename, keeping mode and owner); a file with
    several hard links is rewritten in place so they keep sharing it. A file without a write
    bit, or that changed or vanished since it was read, is left alone: raises WriteError."""
    real = os.path.realpath(path)
    try:
        before = os.stat(real)
    except FileNotFoundError:
        raise WriteError("vanished while gradlint was fixing it; not written") from None
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}") from None
    if not stat.S_ISREG(before.st_mode):
        raise WriteError("cannot write: not a regular file")
    if not before.st_mode & 0o222 or not os.access(real, os.W_OK):
        raise WriteError("cannot write: file is read-only")
    try:
        unchanged = read_bytes(real) == original
    except SourceError:
        unchanged = False
    if not unchanged:
        raise WriteError("changed while gradlint was fixing it; run again")
    try:
        if before.st_nlink > 1:
            _write_in_place(real, data)
        else:
            _replace(real, data, before)
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}") from None


def _write_in_place(path: str, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def _replace(path: str, data: bytes, before: os.stat_result) -> None:
    """Write through a temporary file in the same folder and rename it over `path`: the file is
    either old or new, never half-written."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".gradlint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(before.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(temporary, before.st_uid, before.st_gid)
            except OSError:
                pass  # not ours to give away: the fixed file belongs to whoever runs the fix
        if not _same_file(os.stat(path), before):  # written meanwhile: keep theirs
            raise WriteError("changed while gradlint was fixing it; run again")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _same_file(now: os.stat_result, before: os.stat_result) -> bool:
    return (now.st_ino, now.st_size, now.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
