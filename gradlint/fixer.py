"""Apply fixes one at a time, re-linting between them, never producing code that does not parse."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from gradlint.diagnostics import Diagnostic, Edit
from gradlint.rules.base import Rule
from gradlint.sources import Document


@dataclass
class FixOutcome:
    text: str  # the fixed virtual module (doc.render(text) gives the file's bytes)
    fixed: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def fix_document(doc: Document, rules: Sequence[Rule]) -> FixOutcome:
    raise NotImplementedError


def fix_source(text: str, path: str = "<stdin>.py", select: Sequence[str] | None = None) -> FixOutcome:
    raise NotImplementedError


def edits_for(doc: Document, rules: Sequence[Rule], diagnostic: Diagnostic) -> list[Edit] | None:
    """The edits (in the file's positions) of the fix of one diagnostic, or None."""
    raise NotImplementedError
