"""Run check or fix over many files: each file in isolation, in a process pool when many."""

from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from gradlint.config import Config
from gradlint.diagnostics import FileResult
from gradlint.discovery import Missing
from gradlint.files import WriteError, read_bytes, write_fixed
from gradlint.linter import InternalError, find, parse, to_diagnostic
from gradlint.model.project import content_hash, forget_projects, project_context, project_key
from gradlint.sources import Document, SourceError, load_document
from gradlint.suppression import with_noqa

if TYPE_CHECKING:
    from gradlint.cache import Cache

POOL_THRESHOLD = 64  # below this many files, starting workers costs more than it saves


@dataclass(frozen=True)
class Task:
    path: str
    config: Config
    fix: bool = False
    write: bool = True  # False: compute the diff only (`fix --diff`, stdin)
    unsafe: bool = False  # apply unsafe fixes too (`fix --unsafe-fixes`)
    edits: bool = False  # compute each fix's edits (for the formats that report them)
    data: bytes | None = None  # stdin contents
    add_noqa: bool = False  # `check --add-noqa`: suppress every finding in the file instead
    cache_dir: str | None = None  # where module summaries are cached (None: not cached)


def run(tasks: Sequence[Task | Missing], jobs: int | None = None, cache: "Cache | None" = None) -> list[FileResult]:
    """Results in the order of `tasks`; with a `cache`, unchanged files are not checked again."""
    missing = [FileResult(t.path, error=t.reason) for t in tasks if isinstance(t, Missing)]
    work = [t for t in tasks if isinstance(t, Task)]
    forget_projects()
    with _without_collections():
        if cache is not None:
            return missing + cache.run(work, lambda todo: _run(todo, jobs))
        return missing + _run(work, jobs)


@contextlib.contextmanager
def _without_collections():
    """The models of a project's modules live for the whole run (each file reuses them), and a
    checked file's own model is dropped by reference counting: the collector's passes over
    young objects cost a sixth of the run (24 s -> 20 s of CPU on 6,776 files of 80 ML
    repositories) for 6% of memory, so it does not run meanwhile (workers forked then inherit
    that). Afterwards the run's objects are frozen out of it: a first full pass over them would
    cost a tenth of the run, and the process only reports and exits."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _run(work: list[Task], jobs: int | None) -> list[FileResult]:
    workers = jobs if jobs is not None else min(os.cpu_count() or 1, 8)
    if workers <= 1 or len(work) < POOL_THRESHOLD:
        return [process(task) for task in work]
    from concurrent.futures import ProcessPoolExecutor

    batches = _batches(work, workers)
    results: list[FileResult | None] = [None] * len(work)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for batch, outcomes in zip(batches, pool.map(_process_batch, [[work[i] for i in b] for b in batches])):
            for index, outcome in zip(batch, outcomes):
                results[index] = outcome
    return results  # type: ignore[return-value]


def _batches(work: list[Task], workers: int) -> list[list[int]]:
    """Indexes of `work`, in batches a worker checks together: a project's files stay in one
    batch (each worker builds its own model of a project it meets: its modules parsed and
    summarised, its callers indexed), and a project bigger than a worker's share is cut into
    runs of neighbouring files, which mostly share the modules they call. Biggest first, so the
    pool's workers end together."""
    by_project: dict[object, list[int]] = {}
    for index, task in enumerate(work):
        by_project.setdefault(project_key(task.path), []).append(index)
    share = max(1, -(-len(work) // (workers * 2)))
    batches = []
    for indexes in by_project.values():
        indexes.sort(key=lambda i: work[i].path)
        batches += [indexes[start : start + share] for start in range(0, len(indexes), share)]
    return sorted(batches, key=len, reverse=True)


def _process_batch(tasks: list[Task]) -> list[FileResult]:
    return [process(task) for task in tasks]


def process(task: Task) -> FileResult:
    """Check (or fix) one file; every failure becomes a one-line error on its result."""
    result = FileResult(task.path, output=task.data)  # stdin: echo the source unless fixed
    try:
        if task.config.error:
            result.error, result.config_error = task.config.error, True
            return result
        data = task.data if task.data is not None else read_bytes(task.path)
        document = load_document(task.path, data)
        rules = task.config.rules_for(task.path)
        project = project_context(task.path, task.cache_dir) if task.data is None else None
        if task.add_noqa:
            _add_noqa(task, document, data, rules, result, project)
            return result
        policy = task.config.fix_policy(unsafe=task.unsafe)
        from gradlint.fixer import diagnose, fix_document

        if not task.fix:
            result.diagnostics = diagnose(document, rules, policy, edits=task.edits, project=project)
            if task.cache_dir is not None:
                result.digest, result.dependencies = content_hash(data), project.used if project else {}
                result.listing = project.listing if project else None
            return result
        outcome = fix_document(document, rules, policy, project)
        result.diagnostics, result.fixed, result.fix_failures = outcome.remaining, outcome.fixed, outcome.failures
        if outcome.changed:
            result.diff = document.diff(outcome.text)
            result.output = document.render(outcome.text)
            if task.write and task.data is None:
                _write(result, data, outcome.before)
    except (SourceError, InternalError) as error:
        result.error = str(error)
        result.detail = _traceback(error) if isinstance(error, InternalError) else None
    except Exception as error:  # never a traceback wall: one line, and the run goes on
        result.error = f"internal error: {type(error).__name__}: {error}"
        result.detail = _traceback(error)
    return result


def _add_noqa(task: Task, document: Document, original: bytes, rules, result: FileResult, project) -> None:
    """Write `# noqa: GLxxx` for every finding (never for GL001, which judges such comments)."""
    pairs = [(rule, finding) for rule, finding in find(document, rules, project) if rule.needs_model]
    if not pairs:
        return
    text, _ = with_noqa(document.text, [(finding.span.line, finding.code) for _, finding in pairs])
    output = document.render(text)  # a notebook refuses edits of masked magics: one-line error
    try:
        parse(load_document(task.path, output))
    except SourceError:  # cannot happen to comments put where they can go; never write it anyway
        raise SourceError("adding `# noqa` comments would break the code; nothing written") from None
    result.output = output
    result.fixed = [to_diagnostic(document, rule, finding) for rule, finding in pairs]
    if task.write:
        _write(result, original, [])


def _write(result: FileResult, original: bytes, before: list) -> None:
    """Write the fixed file; when that fails nothing counts as fixed and the file's findings
    are those it had as read."""
    try:
        write_fixed(result.path, result.output, original)
    except WriteError as error:
        result.error = str(error)
        result.fixed, result.fix_failures, result.diagnostics = [], [], before
        result.diff, result.output = "", None


def _traceback(error: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception(type(error), error, error.__traceback__))
