"""Apply fixes one at a time, re-linting between them, never producing code that does not parse."""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import Sequence

from gradlint.diagnostics import Diagnostic, Edit
from gradlint.linter import check_document, find, to_diagnostic
from gradlint.rules import Finding, Rule, select_rules
from gradlint.sources import Document, SourceError, load_document
from gradlint.sources.python import PythonDocument

MAX_PASSES = 25


@dataclass
class FixOutcome:
    text: str  # the fixed virtual module (doc.render(text) gives the file's bytes)
    fixed: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.fixed)


def fixed_text(doc: Document, finding: Finding) -> str:
    """The module with one finding's fix applied; raises FixError or SourceError if it cannot be
    done safely (the result must parse, and the file kind must be able to take it back)."""
    from gradlint.transform import FixError, apply_plan  # libcst only when fixing

    new_text = apply_plan(doc.text, finding.fix)
    if new_text == doc.text:
        raise FixError("the fix changes nothing")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new_text)
    except SyntaxError as error:
        raise FixError(f"the fix would produce invalid code ({error.msg})") from None
    doc.render(new_text)  # a notebook refuses fixes that touch magics or cross cells
    return new_text


def fix_document(doc: Document, rules: Sequence[Rule]) -> FixOutcome:
    from gradlint.transform import FixError

    text, fixed, failures, attempted = doc.text, [], [], set()
    for _ in range(MAX_PASSES):
        scratch = _scratch(doc, text)
        pending = [(r, f) for r, f in find(scratch, rules) if f.fix and _key(scratch, f) not in attempted]
        if not pending:
            break
        rule, finding = pending[0]
        attempted.add(_key(scratch, finding))
        diagnostic = to_diagnostic(scratch, rule, finding)
        try:
            text = fixed_text(scratch, finding)
        except (FixError, SourceError) as error:
            failures.append(f"{_where(diagnostic)}: {finding.code} not fixed: {error}")
            continue
        fixed.append(diagnostic)
    final = doc if text == doc.text else load_document(doc.path, doc.render(text))
    return FixOutcome(text, fixed, check_document(final, rules), failures)


def fix_source(text: str, path: str = "<stdin>.py", select: Sequence[str] | None = None) -> FixOutcome:
    return fix_document(PythonDocument(path, text), select_rules(select))


def edits_for(doc: Document, rules: Sequence[Rule], diagnostic: Diagnostic) -> list[Edit] | None:
    """The edits (in the file's positions) of the fix of one diagnostic, or None."""
    from gradlint.transform import FixError

    for rule, finding in find(doc, rules):
        if finding.fix and to_diagnostic(doc, rule, finding) == diagnostic:
            try:
                return doc.edits(fixed_text(doc, finding))
            except (FixError, SourceError):
                return None
    return None


def _scratch(doc: Document, text: str) -> Document:
    """The document as it stands after the fixes so far (same mapping while nothing moved)."""
    if text == doc.text:
        return doc
    return load_document(doc.path, doc.render(text))


def _key(doc: Document, finding: Finding) -> tuple[str, str]:
    """Identifies a finding across passes, whose line numbers shift as fixes land."""
    return finding.code, doc.source_line(finding.span.line).strip()


def _where(diagnostic: Diagnostic) -> str:
    cell = f"cell {diagnostic.cell}:" if diagnostic.cell else ""
    return f"{diagnostic.path}:{cell}{diagnostic.span.line}"
