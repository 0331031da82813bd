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
        "fix": {"message": diagnostic.fix, "applicability": "safe"} if diagnostic.fixable else None,
        "url": diagnostic.url,
    }


def render(results, color: bool = False) -> str:
    return json.dumps([as_dict(d) for d in all_diagnostics(results)], indent=2, ensure_ascii=False) + "\n"
