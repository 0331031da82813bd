"""The `gradlint` command: check, fix, rule, verify (and the editors' lsp)."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections import Counter
from dataclasses import replace
from pathlib import Path

import click

from gradlint import __version__
from gradlint.config import ConfigError, ConfigResolver
from gradlint.diagnostics import FileResult
from gradlint.discovery import discover
from gradlint.report import FORMATS, WITH_EDITS, location, render
from gradlint.runner import Task, run


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _tasks(paths, stdin_filename, select, ignore, fix=False, write=True, unsafe=False, extend_select=(),
           force_exclude=False, add_noqa=False, edits=False):
    """What to run: every file with the configuration nearest to it. A broken pyproject.toml
    is an error for the files under it (their results say so), not for the run."""
    try:
        resolver = ConfigResolver(_split(select) or None, _split(ignore), _split(extend_select))
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    options = dict(fix=fix, unsafe=unsafe, edits=edits)
    stdin_filename = _stdin_name(paths, stdin_filename)
    if stdin_filename:
        config = resolver.for_path(Path(stdin_filename).parent)
        if force_exclude and config.excluded(stdin_filename):
            config = replace(config, select=(), extend_select=())  # excluded: nothing to report
        return [Task(stdin_filename, config, write=False, data=sys.stdin.buffer.read(), **options)]
    return [
        item if not isinstance(item, str)
        else Task(item, resolver.for_path(item), write=write, add_noqa=add_noqa, **options)
        for item in discover(paths or (".",), resolver.for_path, force_exclude=force_exclude)
    ]


def _stdin_name(paths: tuple[str, ...], stdin_filename: str | None) -> str | None:
    """The name stdin is checked under: --stdin-filename, or `-` given as the only path."""
    if "-" not in paths:
        return stdin_filename
    if len(paths) > 1:
        raise click.UsageError("`-` (read stdin) cannot be combined with other paths")
    return stdin_filename or "-"


def _verbose() -> bool:
    context = click.get_current_context(silent=True)
    return bool(context and context.params.get("verbose")) or os.environ.get("GRADLINT_DEBUG") == "1"


def _report_errors(results: list[FileResult]) -> int:
    """One line per file that could not be checked; one per broken configuration, which names
    its pyproject.toml and says how many files under it were left unchecked."""
    errors = [r for r in results if r.error]
    unchecked = Counter(r.error for r in errors if r.config_error)
    for result in errors:
        if not result.config_error:
            click.echo(f"gradlint: error: {result.path}: {result.error}", err=True)
            if result.detail and _verbose():
                click.echo(result.detail.rstrip("\n"), err=True)
    for error, count in unchecked.items():
        click.echo(f"gradlint: error: {error} ({_plural(count, 'file')} under it not checked)", err=True)
    return len(errors)


def guarded(command):
    """An unexpected failure of the command itself: one line (the traceback with --verbose or
    GRADLINT_DEBUG=1) and exit 2, never a traceback wall."""

    @functools.wraps(command)
    def run_guarded(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as error:
            click.echo(f"gradlint: internal error: {type(error).__name__}: {error}", err=True)
            if _verbose():
                click.echo("".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip("\n"), err=True)
            else:
                click.echo("gradlint: run with --verbose (or GRADLINT_DEBUG=1) for the traceback", err=True)
            sys.exit(2)

    return run_guarded


common = [
    click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
    click.option(
        "--cache-dir", type=click.Path(file_okay=False),
        help="Cache folder (default .gradlint_cache; env GRADLINT_CACHE_DIR).",
    ),
    click.option("--select", multiple=True, help="Rules to enable: codes, prefixes or names (e.g. GL2,clip-after-step)."),
    click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection (e.g. GL001)."),
    click.option("--ignore", multiple=True, help="Rules to disable: codes, prefixes or names."),
    click.option("--stdin-filename", help="Read the source from stdin; use this name for config and reports."),
    click.option("--force-exclude", is_flag=True, help="Apply exclude and extend-exclude to files named on the command line too."),
    click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary."),
    click.option("-v", "--verbose", is_flag=True, help="Print the traceback of internal errors (also GRADLINT_DEBUG=1)."),
]


def with_common(function):
    for option in reversed(common):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gradlint")
def main() -> None:
    """Find, fix and prove gradient-management bugs in PyTorch training loops."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@with_common
@click.option(
    "--output-format", "--format", "fmt", type=click.Choice(sorted(FORMATS)), default="text", show_default=True,
    envvar="GRADLINT_OUTPUT_FORMAT", show_envvar=True, help="How to report the findings.",
)
@click.option("--statistics", is_flag=True, help="Count diagnostics per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: GLxxx` to every line with a finding (to adopt gradlint).")
@click.option("--show-files", is_flag=True, help="List the files that would be checked, and exit.")
@click.option("--show-settings", is_flag=True, help="Show the settings of the first file that would be checked, and exit.")
@guarded
def check(paths, no_cache, cache_dir, select, extend_select, ignore, stdin_filename, force_exclude, quiet, verbose, fmt,
          statistics, exit_zero, output_file, add_noqa, show_files, show_settings):
    """Check PATHS (files or folders; default: the current folder; `-`: stdin)."""
    if add_noqa and _stdin_name(paths, stdin_filename):
        raise click.UsageError("--add-noqa changes files; it cannot read stdin")
    tasks = _tasks(paths, stdin_filename, select, ignore, extend_select=extend_select, force_exclude=force_exclude,
                   add_noqa=add_noqa, edits=fmt in WITH_EDITS and not statistics)
    if show_files or show_settings:
        from gradlint.show import files_listing, settings

        click.echo(files_listing(tasks) if show_files else settings(tasks), nl=False)
        sys.exit(0)
    from gradlint.cache import open_cache

    results = run(tasks, cache=open_cache(no_cache, cache_dir))
    if add_noqa:
        _noqa_summary(results, quiet)
        sys.exit(2 if _report_errors(results) else 0)
    diagnostics = [d for r in results for d in r.diagnostics]
    color = _color() and not output_file
    if statistics:
        counts = Counter((d.code, d.name, d.safe_fix) for d in diagnostics)
        report = "".join(
            f"{n:>5}  {code}  {name}{'  [*]' if fixable else ''}\n"
            for (code, name, fixable), n in counts.most_common()
        )
    else:
        report = render(fmt, results, color=color)
    errors = sum(1 for r in results if r.error)
    if fmt in ("text", "concise") and not quiet and not statistics:
        report += _summary(diagnostics, len(results) - errors, errors)
    _emit(report, output_file)
    _report_errors(results)
    sys.exit(2 if errors else (1 if diagnostics and not exit_zero else 0))


def _noqa_summary(results: list[FileResult], quiet: bool) -> None:
    silenced = sum(len(r.fixed) for r in results)
    files = sum(1 for r in results if r.fixed)
    if not quiet:
        click.echo(f"Added `# noqa` for {_plural(silenced, 'finding')} in {_plural(files, 'file')}.")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _summary(diagnostics, checked: int, failed: int) -> str:
    unchecked = f"; {_plural(failed, 'file')} could not be checked" if failed else ""
    if not diagnostics:
        verdict = "No issues found" if failed else "All checks passed"
        return f"{verdict} ({_plural(checked, 'file')}{unchecked}).\n"
    return f"Found {_plural(len(diagnostics), 'error')}{_fix_hint(diagnostics)}{unchecked}.\n"


def _fix_hint(diagnostics, unsafe_applied: bool = False) -> str:
    """How many of `diagnostics` `gradlint fix` would fix, and how many more need
    --unsafe-fixes (ruff's hidden fixes)."""
    safe = sum(d.safe_fix for d in diagnostics)
    unsafe = sum(d.fixable and not d.safe_fix for d in diagnostics)
    parts = [f"{safe} fixable with `gradlint fix`"] if safe else []
    if unsafe and not unsafe_applied:
        more = "more " if safe else ""
        parts.append(f"{unsafe} {more}fixable with `gradlint fix --unsafe-fixes`")
    return f" ({'; '.join(parts)})" if parts else ""


def _emit(report: str, output_file: str | None) -> None:
    if not output_file:
        click.echo(report, nl=False)
        return
    try:
        Path(output_file).write_text(report, encoding="utf-8")
    except OSError as error:
        click.echo(f"gradlint: error: cannot write {output_file}: {error.strerror or error}", err=True)
        sys.exit(2)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@with_common
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff; write nothing.")
@click.option(
    "--unsafe-fixes", is_flag=True,
    help="Also apply unsafe fixes: they change the size of the updates the run was tuned with (see each rule's doc).",
)
@guarded
def fix(paths, no_cache, cache_dir, select, extend_select, ignore, stdin_filename, force_exclude, quiet, verbose, diff,
        unsafe_fixes):
    """Fix PATHS in place (default: the current folder; `-`: stdin, the fixed source to stdout).
    Applies safe fixes; --unsafe-fixes applies the unsafe ones too. Fixing reads every file
    afresh: the cache options are accepted for symmetry with `check` and change nothing."""
    results = run(_tasks(paths, stdin_filename, select, ignore, fix=True, write=not diff, unsafe=unsafe_fixes,
                         extend_select=extend_select, force_exclude=force_exclude))
    if _stdin_name(paths, stdin_filename) and not diff:
        result = results[0]
        if result.output is not None:
            sys.stdout.buffer.write(result.output)
    elif diff:
        click.echo("".join(r.diff for r in results), nl=False)
    if not quiet:
        _fix_summary(results, wrote=not diff, unsafe=unsafe_fixes)
    errors = _report_errors(results)
    remaining = sum(len(r.diagnostics) for r in results)
    changed = diff and any(r.diff for r in results)
    sys.exit(2 if errors else (1 if remaining or changed else 0))


def _fix_summary(results: list[FileResult], wrote: bool, unsafe: bool) -> None:
    """What was fixed and what remains; a file whose write failed counts nothing as fixed (its
    error is printed after this)."""
    verb = "Fixed" if wrote else "Would fix"
    for result in results:
        for d in result.fixed:
            click.echo(f"{verb} {d.code} {d.name} at {location(d)}", err=True)
        for failure in result.fix_failures:
            click.echo(f"Not fixed: {failure}", err=True)
        for d in result.diagnostics:
            click.echo(f"Remaining: {location(d)}: {d.code} {d.message}", err=True)
    fixed = sum(len(r.fixed) for r in results)
    files = sum(1 for r in results if r.fixed)
    remaining = [d for r in results for d in r.diagnostics]
    hint = _fix_hint(remaining, unsafe_applied=unsafe)
    click.echo(f"{verb} {_plural(fixed, 'issue')} in {_plural(files, 'file')}; {len(remaining)} remaining{hint}.", err=True)


@main.command()
@click.argument("code", required=False)
def rule(code):
    """Show the table of rules, or the documentation of rule CODE."""
    from gradlint.docs import rule_doc
    from gradlint.rules import ALL_RULES, BY_CODE

    if code is None:
        width = max(len(r.name) for r in ALL_RULES)
        for r in ALL_RULES:
            click.echo(f"{r.code}  {r.name:<{width}}  {r.summary}")
        return
    if code.upper() not in BY_CODE:
        raise click.UsageError(f"unknown rule {code!r} (run `gradlint rule` for the list)")
    doc = rule_doc(code)
    if doc is None:
        raise click.ClickException(f"the documentation of {code.upper()} is missing from this installation")
    if _color():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(doc))
    else:
        click.echo(doc, nl=False)


def _register_optional() -> None:
    @main.command("lsp")
    def lsp():
        """Run the language server on stdio (for editors)."""
        try:  # pygls only here: `gradlint check` never imports it
            from gradlint.lsp import serve
        except ImportError as error:
            raise click.ClickException(f"the language server needs pygls>=2 and lsprotocol ({error})") from None
        serve()

    try:
        from gradlint.verify.command import verify
    except ImportError:
        return
    main.add_command(verify)


_register_optional()
