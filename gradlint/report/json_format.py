"""A JSON list of diagnostics with the fields of DESIGN §5 (1-based lines and columns)."""

from __future__ import annotations

import json

from gradlint.report import all_diagnostics


def as_dict(diagnostic) -> dict:
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "path": diagnostic.path,
        "cell": diagnostic.cell,
        "line": span.line,
        "column": span.column + 1,
        "end_line": span.end_line,
        "end_column": span.end_column + 1,
        "severity": diagnostic.severity,
        "fix": fix_dict(diagnostic),
        "url": diagnostic.url,
    }


def fix_dict(diagnostic) -> dict | None:
    """`{message, applicability, edits}`; edits in the file's positions (a notebook's: of `cell`),
    1-based columns, end exclusive; empty when the run computed none."""
    if not diagnostic.fixable:
        return None
    return {
        "message": diagnostic.fix,
        "applicability": diagnostic.applicability,
        "edits": [
            {
                "content": edit.text,
                "cell": edit.cell,
                "line": edit.span.line,
                "column": edit.span.column + 1,
                "end_line": edit.span.end_line,
                "end_column": edit.span.end_column + 1,
            }
            for edit in diagnostic.edits or ()
        ],
    }


def render(results, color: bool = False) -> str:
    return json.dumps([as_dict(d) for d in all_diagnostics(results)], indent=2, ensure_ascii=False) + "\n"
