"""Azure Pipelines logging commands: one `##vso[task.logissue ...]` per diagnostic, shown as
errors or warnings on the pipeline run and its pull request."""

from __future__ import annotations

from gradlint.report import all_diagnostics
from gradlint.report.sarif import file_line

TYPES = {"error": "error", "warning": "warning", "info": "warning"}


def escape(text: str) -> str:
    """Azure's escaping of logging-command values (`%` first, as it introduces the others)."""
    for raw, escaped in (("%", "%AZP25"), ("\r", "%0D"), ("\n", "%0A"), (";", "%3B"), ("]", "%5D")):
        text = text.replace(raw, escaped)
    return text


def issue(kind: str, message: str, **properties) -> str:
    props = "".join(f"{key}={escape(str(value))};" for key, value in properties.items() if value is not None)
    return f"##vso[task.logissue type={kind};{props}]{escape(message)}"


def annotation(d) -> str:
    if d.cell is None:
        line, column = d.span.line, d.span.column + 1
        message = f"{d.name}: {d.message}"
    else:  # a notebook: the line of the .ipynb file that holds the cell's line
        line, column = file_line(d), None
        message = f"cell {d.cell}, line {d.span.line}, column {d.span.column + 1}: {d.name}: {d.message}"
    return issue(TYPES.get(d.severity, "error"), message, sourcepath=d.path, linenumber=line, columnnumber=column, code=d.code)


def render(results, color: bool = False) -> str:
    lines = [issue("error", f"gradlint: {r.error}", sourcepath=r.path) for r in results if r.error]
    lines += [annotation(d) for d in all_diagnostics(results)]
    return "".join(line + "\n" for line in lines)
