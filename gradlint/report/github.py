"""GitHub Actions workflow commands: one `::error file=...,line=...::message` per diagnostic,
shown by GitHub as annotations on the pull request's changed lines."""

from __future__ import annotations

from gradlint.report import all_diagnostics
from gradlint.report.sarif import file_line

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(d) -> str:
    span = d.span
    if d.cell is None:
        position = {
            "line": span.line,
            "col": span.column + 1,
            "endLine": max(span.end_line, span.line),
            "endColumn": span.end_column + 1,  # 1-based and exclusive, as in the json format (and ruff)
        }
        message = f"{d.name}: {d.message}"
    else:  # a notebook: the line of the .ipynb file holding the cell's line; no columns
        position = {"line": file_line(d)}
        message = f"cell {d.cell}, line {span.line}, column {span.column + 1}: {d.name}: {d.message}"
    if d.safe_fix:
        message += f"\n[*] fixable with `gradlint fix`: {d.fix}"
    elif d.fixable:
        message += f"\nfixable with `gradlint fix --unsafe-fixes`: {d.fix}"
    return command(COMMANDS.get(d.severity, "error"), message, file=d.path, **position, title=d.code)


def render(results, color: bool = False) -> str:
    lines = [command("error", f"gradlint: {r.error}", file=r.path, title="gradlint") for r in results if r.error]
    lines += [annotation(d) for d in all_diagnostics(results)]
    return "".join(line + "\n" for line in lines)
