"""The `.gradlint_cache/` folder: per-file results and module summaries between runs (DESIGN §2.3).

Like ruff's cache: a result is reused when the gradlint version, the file's settings (its
selected rules) and its content are unchanged, and so is every project module whose summary the
result used (callees, callers); a result that asked every file of its project (callers, the
definitions of a name) also depends on the list of the project's files with their sizes and
modification times, so that a new caller is seen. A file whose size and modification time are
as recorded is not read again; one that was touched is hashed and reused when its content is
the same. Results live in one JSON file per version, read once and written once by the main
process (atomically: a concurrent run loses its entries, never corrupts the file); summaries are
content-addressed files that workers write atomically. Anything unreadable in the cache is ignored.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Callable

from gradlint import __version__
from gradlint.diagnostics import Diagnostic, Edit, FileResult, Span
from gradlint.fixplan import FixPolicy
from gradlint.model.project import Listing, content_hash, list_project
from gradlint.model.summaries import ModuleSummary

CACHE_DIR_NAME = ".gradlint_cache"
RESULTS_FORMAT = 1
RACY_NS = 2_000_000_000
Stamp = tuple[int, int]  # (mtime_ns, size)


def default_directory() -> Path:
    return Path(os.environ.get("GRADLINT_CACHE_DIR") or CACHE_DIR_NAME)


def stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _write_atomic(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class SummaryCache:
    """Module summaries by content hash (what workers share): `<dir>/<version>/summaries/`."""

    def __init__(self, directory: Path):
        self.folder = Path(directory) / __version__ / "summaries"

    def get_summary(self, digest: str) -> ModuleSummary | None:
        try:
            data = json.loads((self.folder / digest[:2] / f"{digest}.json").read_bytes())
            return ModuleSummary.from_json(data)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # missing, corrupt or of another shape: made again

    def put_summary(self, digest: str, summary: ModuleSummary) -> None:
        folder = self.folder / digest[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _write_atomic(folder / f"{digest}.json", json.dumps(summary.to_json()).encode())
        except OSError:
            pass  # a read-only or full disk costs speed, never the run


class Cache(SummaryCache):
    """Results of `check` per file, plus the summaries (see the module's docstring)."""

    def __init__(self, directory: Path):
        super().__init__(directory)
        self.directory = Path(directory)
        self.results_file = self.directory / __version__ / "results.json"
        self.entries: dict[str, dict[str, Any]] = self._load()
        self.changed = False
        self._listings: dict[tuple[str, bool], Listing] = {}  # project files, listed once per run

    def _listing(self, root: str, flat: bool, checked: str) -> str:
        key = (root, flat)
        if key not in self._listings:
            self._listings[key] = list_project(Path(root), flat)
        return self._listings[key].digest(checked)

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.results_file.read_bytes())
            if data.get("format") == RESULTS_FORMAT and isinstance(data.get("entries"), dict):
                return data["entries"]
        except (OSError, ValueError, AttributeError):
            pass
        return {}

    def run(self, tasks: list, compute: Callable[[list], list[FileResult]]) -> list[FileResult]:
        """Results of `check` tasks (runner.Task) in order: cached ones where valid, the others
        from `compute` (which checks a list of tasks), stored for next time."""
        results: list[FileResult | None] = [None] * len(tasks)
        pending: dict[int, tuple[str, Stamp | None]] = {}
        for index, task in enumerate(tasks):
            if task.fix or task.add_noqa or task.data is not None:
                continue  # fixes, --add-noqa and stdin are never cached
            codes = [rule.code for rule in task.config.rules_for(task.path)]
            settings = settings_key(codes, task.edits, task.config.fix_policy(unsafe=task.unsafe))
            results[index] = self.lookup(task.path, settings)
            if results[index] is None:
                pending[index] = (settings, stamp(task.path))
        todo = [i for i, result in enumerate(results) if result is None]
        computed = compute([replace(tasks[i], cache_dir=str(self.directory)) for i in todo])
        for index, result in zip(todo, computed):
            results[index] = result
            if index in pending:
                self.store(tasks[index].path, *pending[index], result)
        self.save()
        return results

    def lookup(self, path: str, settings: str) -> FileResult | None:
        """The cached result of `path`, or None when anything it depends on changed."""
        key = os.path.abspath(path)
        entry = self.entries.get(key)
        try:
            if entry is None or entry["settings"] != settings or not _unchanged(key, entry["file"]):
                return None
            if not all(_unchanged(dep, recorded) for dep, recorded in entry["dependencies"].items()):
                return None
            listing = entry.get("listing")
            if listing is not None and self._listing(listing[0], listing[1], str(Path(key).resolve())) != listing[2]:
                return None  # a file was added, removed or changed in a project it asked as a whole
            return FileResult(path, diagnostics=[_diagnostic(d, path) for d in entry["diagnostics"]], error=entry["error"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None  # a corrupt entry is a miss

    def store(self, path: str, settings: str, file_stamp: Stamp | None, result: FileResult) -> None:
        if file_stamp is None or result.digest is None:
            return
        self.entries[os.path.abspath(path)] = {
            "settings": settings,
            "file": _settled([*file_stamp, result.digest]),
            "dependencies": {dep: _settled(recorded) for dep, recorded in result.dependencies.items()},
            "listing": result.listing,
            "diagnostics": [_plain(d) for d in result.diagnostics],
            "error": result.error,
        }
        self.changed = True

    def save(self) -> None:
        """Write the results (atomically); a `.gitignore` keeps the folder out of git."""
        try:
            self.results_file.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                _write_atomic(ignore, b"# Created by gradlint automatically.\n*\n")
            if not self.changed:
                return
            data = {"format": RESULTS_FORMAT, "entries": self.entries}
            _write_atomic(self.results_file, json.dumps(data, separators=(",", ":")).encode())
        except OSError:
            pass


def settings_key(codes: list[str], edits: bool, policy: FixPolicy) -> str:
    """What a file's result depends on besides its content: the rules, whether fixes carry
    their edits (some report formats), and which fixes may be offered."""
    fixable = ",".join(sorted(policy.codes)) if policy.codes is not None else "all"
    return f"{','.join(codes)};edits={edits};unsafe={policy.unsafe};fixable={fixable}"


def _settled(recorded: list) -> list:
    """A file modified in the last seconds may change again within the file system's clock
    tick, keeping its stamp: such a file is compared by content next time (as git does)."""
    mtime, size, digest = recorded
    return [mtime, size, digest] if mtime < time.time_ns() - RACY_NS else [0, -1, digest]


def _unchanged(path: str, recorded: list) -> bool:
    """`recorded` is [mtime_ns, size, content hash]: the same stamp, or the same content."""
    mtime, size, digest = recorded
    current = stamp(path)
    if current is None:
        return False
    if current == (mtime, size):
        return True
    try:
        with open(path, "rb") as handle:
            return content_hash(handle.read()) == digest
    except OSError:
        return False


def _plain(diagnostic: Diagnostic) -> dict[str, Any]:
    data = asdict(diagnostic)
    data.pop("path")
    return data


def _diagnostic(data: dict[str, Any], path: str) -> Diagnostic:
    edits = data.get("edits")
    if edits is not None:
        edits = tuple(Edit(Span(**e["span"]), e["text"], e["cell"]) for e in edits)
    return Diagnostic(**{**data, "span": Span(**data["span"]), "path": path, "edits": edits})


def open_cache(no_cache: bool, directory: str | None) -> Cache | None:
    """The cache a command line asks for: None with --no-cache."""
    return None if no_cache else Cache(Path(directory) if directory else default_directory())
