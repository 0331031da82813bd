"""SARIF 2.1.0, the format of GitHub code scanning and most security dashboards.

Fixes are the edits the run computed for each diagnostic (never recomputed here). Also home of
helpers the other machine-readable reporters share: `file_line` (where a notebook cell's line
sits in the `.ipynb` file itself, which is what annotations need) and `fingerprints`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Sequence
from urllib.parse import quote

from gradlint import __version__
from gradlint.diagnostics import Diagnostic, Edit, FileResult
from gradlint.report import all_diagnostics

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/gradlint/gradlint"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


# -- shared helpers ----------------------------------------------------------------------------


def file_line(diagnostic: Diagnostic) -> int:
    """The line of the file itself where a diagnostic starts: for a notebook cell, the line of
    the `.ipynb` text holding the cell's line (found when the file was read)."""
    return diagnostic.file_line or diagnostic.span.line


def artifact_uri(path: str) -> tuple[str, bool]:
    """(URI reference of a file, relative to the current folder?)."""
    try:
        relative = os.path.relpath(os.path.abspath(path))
    except ValueError:  # another drive on Windows
        relative = None
    if relative is not None and not relative.startswith(".."):
        return quote(Path(relative).as_posix()), True
    return Path(os.path.abspath(path)).as_uri(), False


# -- the report --------------------------------------------------------------------------------


def render(results: Sequence[FileResult], color: bool = False) -> str:
    return json.dumps(sarif_log(results), indent=2, ensure_ascii=False) + "\n"


def sarif_log(results: Sequence[FileResult]) -> dict:
    from gradlint.rules import ALL_RULES

    diagnostics = all_diagnostics(results)
    rules = list(ALL_RULES)
    index = {rule.code: i for i, rule in enumerate(rules)}
    descriptors = [_descriptor(rule) for rule in rules]
    for d in diagnostics:  # a rule this build does not list (should not happen): describe it
        if d.code not in index:
            index[d.code] = len(descriptors)
            descriptors.append({"id": d.code, "name": d.name, "helpUri": d.url} if d.url else {"id": d.code})
    prints = fingerprints(diagnostics)
    notifications = [
        {
            "level": "error",
            "message": {"text": result.error},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(result.path)}}],
        }
        for result in results
        if result.error
    ]
    run = {
        "tool": {
            "driver": {
                "name": "gradlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [
            {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}
        ],
        "results": [_result(d, index[d.code], prints[d]) for d in diagnostics],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _descriptor(rule) -> dict:
    from gradlint.docs import rule_doc

    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "error")},
        "properties": {"tags": ["pytorch", "gradients", rule.code[:3]]},  # family: GL2, GL3 ...
    }
    try:
        doc = rule_doc(rule.code)
    except OSError:
        doc = None
    if doc:
        descriptor["fullDescription"] = {"text": _first_paragraph(doc) or rule.summary}
        descriptor["help"] = {"text": doc, "markdown": doc}
    else:
        descriptor["help"] = {"text": f"{rule.summary}\n\nSee {rule.url}", "markdown": f"{rule.summary}\n\nSee <{rule.url}>"}
    return descriptor


def _first_paragraph(doc: str) -> str:
    """The first paragraph of prose of a rule doc (after its title)."""
    for block in re.split(r"\n\s*\n", doc):
        block = block.strip()
        if block and not block.startswith(("#", "```", "|", "-", "*")):
            return " ".join(block.split())
    return ""


def _artifact(path: str) -> dict:
    uri, relative = artifact_uri(path)
    return {"uri": uri, "uriBaseId": "%SRCROOT%"} if relative else {"uri": uri}


def _result(d: Diagnostic, rule_index: int, fingerprint: str) -> dict:
    span = d.span
    if d.cell is None:
        region = {
            "startLine": span.line,
            "startColumn": span.column + 1,
            "endLine": max(span.end_line, span.line),
            "endColumn": span.end_column + 1,
        }
        if d.source_line:
            region["snippet"] = {"text": d.source_line}
    else:  # columns of a cell line are not columns of the .ipynb file's JSON
        region = {"startLine": file_line(d)}
    message = d.message if d.cell is None else f"cell {d.cell}, line {span.line}: {d.message}"
    result = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVELS.get(d.severity, "error"),
        "message": {"text": message},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(d.path), "region": region}}],
        "partialFingerprints": {"gradlint/v1": fingerprint},
    }
    properties = {}
    if d.cell is not None:
        properties.update(cell=d.cell, cellLine=span.line, cellColumn=span.column + 1)
    if d.fixable:
        properties.update(fix=d.fix, applicability=d.applicability)
    if properties:
        result["properties"] = properties
    if d.edits and d.cell is None:  # a cell's columns are not the .ipynb file's
        result["fixes"] = [
            {
                "description": {"text": d.fix},
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(d.path),
                        "replacements": [_replacement(edit) for edit in d.edits],
                    }
                ],
            }
        ]
    return result


def _replacement(edit: Edit) -> dict:
    span = edit.span
    region = {
        "startLine": span.line,
        "startColumn": span.column + 1,
        "endLine": max(span.end_line, span.line),
        "endColumn": span.end_column + 1,
    }
    replacement = {"deletedRegion": region}
    if edit.text:
        replacement["insertedContent"] = {"text": edit.text}
    return replacement


def fingerprints(diagnostics: Sequence[Diagnostic]) -> dict[Diagnostic, str]:
    """A fingerprint per diagnostic that survives reruns and lines moving up or down: a hash of
    the file, the rule, the cell, the (whitespace-normalised) source line and the occurrence
    number of that combination, never of line numbers."""
    import hashlib

    seen: dict[str, int] = {}
    result = {}
    for d in diagnostics:
        key = "\0".join((d.code, Path(d.path).as_posix(), str(d.cell or ""), " ".join(d.source_line.split())))
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        digest = hashlib.sha256(f"{key}\0{occurrence}".encode("utf-8", "surrogatepass")).hexdigest()
        result[d] = digest[:32]
    return result
