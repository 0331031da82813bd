"""One line per diagnostic: `path:line:col: GL201 [*] message`."""

from __future__ import annotations

from gradlint.report import all_diagnostics, location


def line(diagnostic) -> str:
    marker = " [*]" if diagnostic.safe_fix else ""  # only what `gradlint fix` applies
    return f"{location(diagnostic)}: {diagnostic.code}{marker} {diagnostic.message}"


def render(results, color: bool = False) -> str:
    return "".join(line(d) + "\n" for d in all_diagnostics(results))
