"""The `gradlint` command: check, fix, rule, verify (and the editors' lsp)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import click

from gradlint import __version__
from gradlint.config import ConfigError, ConfigResolver
from gradlint.diagnostics import FileResult
from gradlint.files import discover
from gradlint.report import FORMATS, location, render
from gradlint.runner import Task, run


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _tasks(paths, stdin_filename, select, ignore, fix=False, write=True):
    """What to run: every file with the configuration nearest to it. A broken pyproject.toml
    is a one-line error (exit 2), not a usage message: the command line was fine."""
    try:
        try:
            resolver = ConfigResolver(_split(select) or None, _split(ignore))
        except ConfigError as error:
            raise click.UsageError(str(error)) from None
        if stdin_filename:
            config = resolver.for_path(Path(stdin_filename).parent)
            return [Task(stdin_filename, config, fix=fix, write=False, data=sys.stdin.buffer.read())]
        return [
            item if not isinstance(item, str) else Task(item, resolver.for_path(item), fix=fix, write=write)
            for item in discover(paths or (".",), resolver.for_path)
        ]
    except ConfigError as error:
        click.echo(f"gradlint: error: {error}", err=True)
        sys.exit(2)


def _report_errors(results: list[FileResult]) -> int:
    errors = [r for r in results if r.error]
    for result in errors:
        click.echo(f"gradlint: error: {result.path}: {result.error}", err=True)
    return len(errors)


common = [
    click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
    click.option(
        "--cache-dir", type=click.Path(file_okay=False),
        help="Cache folder (default .gradlint_cache; env GRADLINT_CACHE_DIR).",
    ),
    click.option("--select", multiple=True, help="Rule codes or prefixes to enable (e.g. GL2,GL301)."),
    click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable."),
    click.option("--stdin-filename", help="Read the source from stdin; use this name for config and reports."),
    click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary."),
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
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default="text", show_default=True)
@click.option("--statistics", is_flag=True, help="Count diagnostics per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report to this file.")
def check(paths, no_cache, cache_dir, select, ignore, stdin_filename, quiet, fmt, statistics, exit_zero, output_file):
    """Check PATHS (files or folders; default: the current folder)."""
    from gradlint.cache import open_cache

    results = run(_tasks(paths, stdin_filename, select, ignore), cache=open_cache(no_cache, cache_dir))
    diagnostics = [d for r in results for d in r.diagnostics]
    color = _color() and not output_file
    if statistics:
        counts = Counter((d.code, d.name, d.fixable) for d in diagnostics)
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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _summary(diagnostics, checked: int, failed: int) -> str:
    unchecked = f"; {_plural(failed, 'file')} could not be checked" if failed else ""
    if not diagnostics:
        verdict = "No issues found" if failed else "All checks passed"
        return f"{verdict} ({_plural(checked, 'file')}{unchecked}).\n"
    fixable = sum(d.fixable for d in diagnostics)
    hint = f" ({fixable} fixable with `gradlint fix`)" if fixable else ""
    return f"Found {_plural(len(diagnostics), 'error')}{hint}{unchecked}.\n"


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
def fix(paths, no_cache, cache_dir, select, ignore, stdin_filename, quiet, diff):
    """Fix PATHS in place (default: the current folder). Fixing reads every file afresh: the
    cache options are accepted for symmetry with `check` and change nothing."""
    results = run(_tasks(paths, stdin_filename, select, ignore, fix=True, write=not diff))
    if stdin_filename and not diff:
        result = results[0]
        if result.output is not None:
            sys.stdout.buffer.write(result.output)
    elif diff:
        click.echo("".join(r.diff for r in results), nl=False)
    if not quiet:
        _fix_summary(results, wrote=not diff)
    errors = _report_errors(results)
    remaining = sum(len(r.diagnostics) for r in results)
    changed = diff and any(r.diff for r in results)
    sys.exit(2 if errors else (1 if remaining or changed else 0))


def _fix_summary(results: list[FileResult], wrote: bool) -> None:
    err = True
    for result in results:
        for d in result.fixed:
            click.echo(f"{'Fixed' if wrote else 'Would fix'} {d.code} {d.name} at {location(d)}", err=err)
        for failure in result.fix_failures:
            click.echo(f"Not fixed: {failure}", err=err)
        for d in result.diagnostics:
            click.echo(f"Remaining: {location(d)}: {d.code} {d.message}", err=err)
    fixed = sum(len(r.fixed) for r in results)
    files = sum(1 for r in results if r.fixed)
    remaining = sum(len(r.diagnostics) for r in results)
    verb = "Fixed" if wrote else "Would fix"
    click.echo(
        f"{verb} {fixed} issue{'s' if fixed != 1 else ''} in {files} file{'s' if files != 1 else ''}; "
        f"{remaining} remaining.",
        err=err,
    )


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
