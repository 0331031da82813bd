"""The analysis cache: each open document checked once per version and per settings.

Diagnostics (pushed or pulled), code actions and hovers all read the same `Analysis`, so a
version is parsed once; only fixes run libcst, and only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from gradlint.config import Config
from gradlint.diagnostics import Diagnostic
from gradlint.fixplan import FixPolicy
from gradlint.linter import InternalError, find, to_diagnostic
from gradlint.lsp.documents import Snapshot
from gradlint.rules import Finding, Rule
from gradlint.sources import Document, SourceError


@dataclass
class Analysis:
    """One version of one document (a text document or a notebook), checked."""

    snapshot: Snapshot
    settings: object  # the client settings it was checked with
    policy: FixPolicy = FixPolicy()  # which fixes fix-all applies (config and unsafeFixes)
    doc: Document | None = None
    rules: list[Rule] = field(default_factory=list)
    pairs: list[tuple[Rule, Finding]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None

    @property
    def result_id(self) -> str:
        """Names this analysis for pull diagnostics: the same id means the same diagnostics."""
        return f"{id(self):x}"


def analyse(
    snapshot: Snapshot, settings: object, config: Config, unsafe: bool, on_error: Callable[[str], None]
) -> Analysis:
    """Check a snapshot with `config`; a module that does not parse (half-typed) has no
    diagnostics, a crashing rule is reported through `on_error`."""
    analysis = Analysis(snapshot, settings, config.fix_policy(unsafe))
    if config.excluded(snapshot.path):
        return analysis
    try:
        analysis.rules = config.rules_for(snapshot.path)
        analysis.doc = snapshot.document()
        analysis.pairs = find(analysis.doc, analysis.rules)
        analysis.diagnostics = [to_diagnostic(analysis.doc, rule, finding) for rule, finding in analysis.pairs]
    except SourceError as error:
        analysis.error = str(error)
    except InternalError as error:
        analysis.error = str(error)
        on_error(f"gradlint: {error}")
    return analysis


class AnalysisCache:
    """The latest analysis of each owner URI, reused while its texts and settings stand."""

    def __init__(self) -> None:
        self.entries: dict[str, Analysis] = {}

    def current(self, snapshot: Snapshot, settings: object) -> Analysis | None:
        cached = self.entries.get(snapshot.uri)
        if cached is None or cached.settings != settings or cached.snapshot.key != snapshot.key:
            return None
        cached.snapshot = snapshot  # same texts, maybe a newer version number
        return cached

    def store(self, analysis: Analysis) -> Analysis:
        self.entries[analysis.snapshot.uri] = analysis
        return analysis

    def get(self, owner: str) -> Analysis | None:
        return self.entries.get(owner)

    def drop(self, owner: str) -> None:
        self.entries.pop(owner, None)

    def clear(self) -> None:
        self.entries.clear()
