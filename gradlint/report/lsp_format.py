"""LSP diagnostics as JSON: `{document URI: [Diagnostic, ...]}`, for editor plugins that run
`gradlint check --format lsp` instead of the language server.

Each Diagnostic follows the Language Server Protocol: 0-based lines, characters in UTF-16 code
units (the protocol's default encoding), severity 1 (error) or 2 (warning), `code`,
`codeDescription.href`, `source: "gradlint"`. Notebooks are keyed by the notebook file's URI;
`data.cell` (1-based) says which cell a range belongs to. `data.fix` describes the fix, its
`applicability` (safe | unsafe) and, when the run computed them, its `edits` (LSP TextEdits,
each with its `cell` for notebooks).

The language server (`gradlint lsp`) builds its diagnostics with the same functions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Sequence

from gradlint.diagnostics import Diagnostic, Edit, Span
from gradlint.report import all_diagnostics

SEVERITY = {"error": 1, "warning": 2, "info": 3, "hint": 4}
SOURCE = "gradlint"

# the width of a string in the client's units: utf-16 by default
Units = Callable[[str], int]


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def file_uri(path: str) -> str:
    return Path(os.path.abspath(path)).as_uri()


def position(line: int, column: int, text: str | None, units: Units = utf16_units) -> dict:
    """An LSP Position from a 1-based line and a 0-based code point column on `text`."""
    character = units(text[:column]) + max(0, column - len(text)) if text is not None else column
    return {"line": max(line - 1, 0), "character": character}


def lsp_range(span: Span, line_text: Callable[[int], str | None], units: Units = utf16_units) -> dict:
    return {
        "start": position(span.line, span.column, line_text(span.line), units),
        "end": position(span.end_line, span.end_column, line_text(span.end_line), units),
    }


def text_edit(edit: Edit, line_text: Callable[[int], str | None], units: Units = utf16_units) -> dict:
    return {"range": lsp_range(edit.span, line_text, units), "newText": edit.text}


def lsp_diagnostic(
    d: Diagnostic,
    line_text: Callable[[int], str | None] | None = None,
    edits: Sequence[Edit] | None = None,
    units: Units = utf16_units,
) -> dict:
    """One LSP Diagnostic (a JSON-ready dict). `line_text(n)` gives line n (1-based) of the file
    (of the diagnostic's cell in a notebook), to count characters in the client's units.
    `edits` default to those the run computed for the diagnostic."""
    if line_text is None:
        line_text = lambda n: d.source_line if n == d.span.line else None  # noqa: E731
    if edits is None:
        edits = d.edits
    data: dict = {"name": d.name, "cell": d.cell, "fix": None}
    if d.fix is not None:
        fix: dict = {"title": d.fix, "applicability": d.applicability}
        if edits:
            fix["edits"] = [
                dict(text_edit(e, line_text, units), **({"cell": e.cell} if e.cell is not None else {}))
                for e in edits
            ]
        data["fix"] = fix
    result = {
        "range": lsp_range(d.span, line_text, units),
        "severity": SEVERITY.get(d.severity, 1),
        "code": d.code,
        "source": SOURCE,
        "message": d.message,
        "data": data,
    }
    if d.url:
        result["codeDescription"] = {"href": d.url}
    return result


def render(results, color: bool = False) -> str:
    diagnostics = all_diagnostics(results)
    report: dict[str, list] = {}
    for result in sorted(results, key=lambda r: r.path):
        if not result.error:
            report.setdefault(file_uri(result.path), [])
    for d in diagnostics:
        report.setdefault(file_uri(d.path), []).append(lsp_diagnostic(d))
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
