"""SARIF 2.1.0, the format of GitHub code scanning and most security dashboards.

Also home of two helpers the other machine-readable reporters share: `fix_edits` (the edits of
each fixable diagnostic, computed again from the file on disk) and `file_line` (where a
notebook cell's line sits in the `.ipynb` file itself, which is what annotations need).
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence
from urllib.parse import quote

from gradlint import __version__
from gradlint.diagnostics import Diagnostic, Edit, FileResult
from gradlint.report import all_diagnostics

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/gradlint/gradlint"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


# -- shared helpers ----------------------------------------------------------------------------


def fix_edits(diagnostics: Iterable[Diagnostic]) -> dict[Diagnostic, list[Edit]]:
    """The edits of every fixable diagnostic whose file still reads as it did when checked.

    Reporters never see trees, so the document is loaded again from disk; anything that goes
    wrong (file gone, changed since, a fix that cannot be made) just leaves that fix out."""
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if diagnostic.fixable:
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
    found: dict[Diagnostic, list[Edit]] = {}
    if not by_path:
        return found
    try:
        from gradlint.fixer import edits_for
        from gradlint.rules import BY_CODE
        from gradlint.sources import load_document
    except Exception:  # pragma: no cover - a broken installation: report without fixes
        return found
    for path, pending in by_path.items():
        try:
            with open(path, "rb") as handle:
                doc = load_document(path, handle.read())
        except Exception:
            continue
        rules = [BY_CODE[code] for code in dict.fromkeys(d.code for d in pending) if code in BY_CODE]
        for diagnostic in pending:
            try:
                edits = edits_for(doc, rules, diagnostic)
            except Exception:
                edits = None
            if edits:
                found[diagnostic] = edits
    return found


def file_line(diagnostic: Diagnostic) -> tuple[int, bool]:
    """(line in the file itself, exact?) of a diagnostic's start.

    For a `.py` file that is its own line. For a notebook cell, it is the line of the `.ipynb`
    file that holds the cell's source line (exact when the source is stored one JSON string per
    line, as Jupyter and Colab do; else the line where the cell's source starts); when the
    notebook cannot be read, the line within the cell (not exact)."""
    if diagnostic.cell is None:
        return diagnostic.span.line, True
    lines = _notebook_source_lines(diagnostic.path).get(diagnostic.cell)
    if not lines:
        return diagnostic.span.line, False
    index = diagnostic.span.line - 1
    if 0 <= index < len(lines):
        return lines[index], len(lines) > 1 or index == 0
    return lines[-1], False


@lru_cache(maxsize=64)
def _notebook_source_lines(path: str) -> dict[int, list[int]]:
    """cell number -> the 1-based file line of each of its source lines ([one] for a string)."""
    try:
        raw = Path(path).read_bytes().decode("utf-8-sig")
        return _scan_notebook(raw)
    except Exception:
        return {}


_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _scan_notebook(raw: str) -> dict[int, list[int]]:
    """Offsets of the cells' sources in the notebook's JSON text, found without a full parse."""
    decoder = json.JSONDecoder()

    def ws(pos: int) -> int:
        return _WS.match(raw, pos).end()

    def skip(pos: int) -> int:  # end of the JSON value starting at pos
        char = raw[pos]
        if char == '"':
            return json.decoder.scanstring(raw, pos + 1)[1]
        if char in "{[":
            close = "}" if char == "{" else "]"
            pos = ws(pos + 1)
            while raw[pos] != close:
                if char == "{":
                    pos = ws(skip(pos))
                    pos = ws(pos + 1)  # the colon
                pos = ws(skip(pos))
                if raw[pos] == ",":
                    pos = ws(pos + 1)
            return pos + 1
        match = _SCALAR.match(raw, pos)
        if not match:
            raise ValueError(f"not JSON at {pos}")
        return match.end()

    def members(pos: int):  # (key, value offset) of the object at pos
        pos = ws(pos + 1)
        while raw[pos] != "}":
            key, pos = decoder.raw_decode(raw, pos)
            pos = ws(ws(pos) + 1)
            yield key, pos
            pos = ws(skip(pos))
            if raw[pos] == ",":
                pos = ws(pos + 1)

    def elements(pos: int):  # offsets of the array's elements
        pos = ws(pos + 1)
        while raw[pos] != "]":
            yield pos
            pos = ws(skip(pos))
            if raw[pos] == ",":
                pos = ws(pos + 1)

    def line_of(offset: int) -> int:
        return raw.count("\n", 0, offset) + 1

    result: dict[int, list[int]] = {}
    top = ws(0)
    for key, value in members(top):
        if key != "cells" or raw[value] != "[":
            continue
        for number, cell in enumerate(elements(value), start=1):
            if raw[cell] != "{":
                continue
            for cell_key, source in members(cell):
                if cell_key == "source":
                    starts = list(elements(source)) if raw[source] == "[" else [source]
                    result[number] = [line_of(start) for start in starts]
        break
    return result


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
    edits = fix_edits(d for d in diagnostics if d.cell is None)
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
        "results": [_result(d, index[d.code], edits.get(d), prints[d]) for d in diagnostics],
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


def _result(d: Diagnostic, rule_index: int, edits: list[Edit] | None, fingerprint: str) -> dict:
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
        line, _ = file_line(d)
        region = {"startLine": line}
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
        properties["fix"] = d.fix
    if properties:
        result["properties"] = properties
    if edits:
        result["fixes"] = [
            {
                "description": {"text": d.fix},
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(d.path),
                        "replacements": [_replacement(edit) for edit in edits],
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
