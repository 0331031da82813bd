"""Check one document: parse once, build the training-loop model, run the rules."""

from __future__ import annotations

from typing import Sequence

from gradlint.diagnostics import Diagnostic
from gradlint.rules.base import Rule
from gradlint.sources import Document


def check_document(doc: Document, rules: Sequence[Rule]) -> list[Diagnostic]:
    """Diagnostics of `rules` on `doc`, mapped to the file's own positions, suppressions applied.

    Raises SourceError for a module that does not parse."""
    raise NotImplementedError


def check_source(text: str, path: str = "<stdin>.py", select: Sequence[str] | None = None) -> list[Diagnostic]:
    """Convenience for tests and tools: check Python source text with the selected rule codes."""
    raise NotImplementedError
