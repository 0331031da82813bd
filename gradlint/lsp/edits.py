"""Edits the server hands the client: one finding's fix, fix all, and the ignore comment.

Fix-all applies safe fixes only, and unsafe ones too only when the client's `unsafeFixes`
setting says so (DESIGN §2.2); a single quick fix is the user's explicit choice and is offered
either way, its title saying when it is unsafe. Edits come in the file's own positions (a cell's
for notebooks) and are turned into LSP ranges in the client's position encoding.
"""

from __future__ import annotations

import logging
from typing import Callable, Sequence

from lsprotocol import types

from gradlint.diagnostics import Diagnostic, Edit, Span
from gradlint.linter import to_diagnostic
from gradlint.lsp.analysis import Analysis
from gradlint.sources import SourceError
from gradlint.suppression import ignore_list

log = logging.getLogger("gradlint.lsp")

# the width of a string in the client's position units
Units = Callable[[str], int]


def units_for(encoding: str | None) -> Units:
    if encoding == types.PositionEncodingKind.Utf8:
        return lambda text: len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len
    return lambda text: len(text.encode("utf-16-le", "surrogatepass")) // 2


def lsp_range(span: Span, lines: list[str], units: Units) -> types.Range:
    def position(line: int, column: int) -> types.Position:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return types.Position(line=max(line - 1, 0), character=units(text[:column]))

    return types.Range(start=position(span.line, span.column), end=position(span.end_line, span.end_column))


def workspace_edit(analysis: Analysis, edits: Sequence[Edit], units: Units, versioned: bool) -> types.WorkspaceEdit:
    """The edits as a WorkspaceEdit: `documentChanges` with versions when the client takes
    them (`versioned`), else plain `changes`."""
    snapshot = analysis.snapshot
    grouped: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        target = snapshot.target(edit.cell)
        if target is not None:
            text_edit = types.TextEdit(range=lsp_range(edit.span, snapshot.lines(target), units), new_text=edit.text)
            grouped.setdefault(target, []).append(text_edit)
    if not versioned:
        return types.WorkspaceEdit(changes=grouped)
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=target, version=snapshot.version_of(target)),
                edits=text_edits,
            )
            for target, text_edits in grouped.items()
        ]
    )


def fix_title(d: Diagnostic) -> str:
    unsafe = " (unsafe fix)" if d.applicability == "unsafe" else ""
    return f"{d.code}: {d.fix}{unsafe}"


def fix_edits(analysis: Analysis, diagnostic: Diagnostic) -> list[Edit] | None:
    """The edits of one diagnostic's fix, from the findings already at hand."""
    from gradlint.fixer import fixed_text
    from gradlint.transform import FixError

    doc = analysis.doc
    if doc is None:
        return None
    for rule, finding in analysis.pairs:
        if finding.fix and to_diagnostic(doc, rule, finding) == diagnostic:
            try:
                return doc.edits(fixed_text(doc, finding))
            except (FixError, SourceError):
                return None
    return None


def fix_all_edits(analysis: Analysis) -> list[Edit]:
    """Every fix the analysis's policy applies (unsafe ones only with `unsafeFixes`), as edits
    of the original."""
    from gradlint.fixer import fix_document

    if analysis.doc is None or not any(fix_applies(analysis, d) for d in analysis.diagnostics):
        return []
    outcome = fix_document(analysis.doc, analysis.rules, analysis.policy)
    return analysis.doc.edits(outcome.text) if outcome.changed else []


def fix_applies(analysis: Analysis, d: Diagnostic) -> bool:
    """Fix-all would apply this diagnostic's fix."""
    return d.fixable and analysis.policy.applies(d.code, d.applicability)


def ignore_edit(analysis: Analysis, diagnostic: Diagnostic) -> list[Edit] | None:
    """`  # gradlint: ignore[GLxxx]` at the end of the diagnostic's first line (or the code
    added to the directive already there); None where a comment cannot go."""
    target = analysis.snapshot.target(diagnostic.cell)
    if target is None:
        return None
    lines = analysis.snapshot.lines(target)
    number = diagnostic.span.line
    if not 0 < number <= len(lines):
        return None
    line = lines[number - 1]
    existing = ignore_list(line)
    if existing:
        codes, start, end = existing
        return [Edit(Span(number, start, number, end), ", ".join([*codes, diagnostic.code]), diagnostic.cell)]
    if line.rstrip().endswith("\\"):
        return None  # a backslash continuation: no comment can follow it
    column = len(line.rstrip())
    return [Edit(Span(number, column, number, len(line)), f"  # gradlint: ignore[{diagnostic.code}]", diagnostic.cell)]
