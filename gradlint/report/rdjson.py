"""reviewdog's Diagnostic Format (rdjson): `reviewdog -f=rdjson` posts the findings as pull
request review comments, with each fix of a `.py` file as a suggested change."""

from __future__ import annotations

import json
from pathlib import Path

from gradlint.report import all_diagnostics
from gradlint.report.sarif import INFORMATION_URI, file_line

SEVERITIES = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def _byte_column(text: str, column: int) -> int:
    """rdjson columns are 1-based UTF-8 byte offsets."""
    return len(text[:column].encode("utf-8")) + 1


def _range(d) -> dict:
    span = d.span
    if d.cell is not None:  # a notebook: the line of the .ipynb file that holds the cell's line
        return {"start": {"line": file_line(d)}}
    end = _byte_column(d.source_line, span.end_column) if span.end_line == span.line else span.end_column + 1
    return {
        "start": {"line": span.line, "column": _byte_column(d.source_line, span.column)},
        "end": {"line": span.end_line, "column": end},
    }


def _suggestions(edits) -> list[dict]:
    """Edits are whole lines (column 0 to column 0), so byte and character columns agree."""
    return [
        {
            "range": {
                "start": {"line": e.span.line, "column": e.span.column + 1},
                "end": {"line": e.span.end_line, "column": e.span.end_column + 1},
            },
            "text": e.text,
        }
        for e in edits
    ]


def diagnostic(d) -> dict:
    where = f"cell {d.cell}, line {d.span.line}, column {d.span.column + 1}: " if d.cell is not None else ""
    entry = {
        "message": f"{where}{d.message}",
        "location": {"path": Path(d.path).as_posix().removeprefix("./"), "range": _range(d)},
        "severity": SEVERITIES.get(d.severity, "ERROR"),
        "code": {"value": d.code, "url": d.url},
    }
    if d.edits and d.cell is None:
        entry["suggestions"] = _suggestions(d.edits)
    return entry


def render(results, color: bool = False) -> str:
    report = {
        "source": {"name": "gradlint", "url": INFORMATION_URI},
        "severity": "ERROR",
        "diagnostics": [diagnostic(d) for d in all_diagnostics(results)],
    }
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
