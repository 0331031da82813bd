"""Reporters: each turns file results into one output text; they never look at trees."""

from __future__ import annotations

import importlib
from typing import Sequence

from gradlint.diagnostics import FileResult

# format name -> module in gradlint.report exposing `render(results, color=False) -> str`
FORMATS = {
    "text": "text",
    "concise": "concise",
    "json": "json_format",
    "json-lines": "json_lines",
    "github": "github",
    "sarif": "sarif",
    "gitlab": "gitlab",
    "junit": "junit",
    "lsp": "lsp_format",
    "rdjson": "rdjson",
    "azure": "azure",
}


# formats whose output carries each fix's edits: `check` computes edits (libcst) for these only
WITH_EDITS = frozenset({"json", "json-lines", "sarif", "lsp", "rdjson"})


def render(fmt: str, results: Sequence[FileResult], color: bool = False) -> str:
    module = importlib.import_module(f"gradlint.report.{FORMATS[fmt]}")
    return module.render(results, color=color)


def location(diagnostic) -> str:
    """`path:line:col` with 1-based columns, `path:cell N:line:col` in notebooks."""
    cell = f"cell {diagnostic.cell}:" if diagnostic.cell else ""
    return f"{diagnostic.path}:{cell}{diagnostic.span.line}:{diagnostic.span.column + 1}"


def all_diagnostics(results: Sequence[FileResult]):
    return sorted((d for r in results for d in r.diagnostics), key=lambda d: d.sort_key())
