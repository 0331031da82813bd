"""The data every stage passes on: spans, findings of rules, and diagnostics for reporters."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Span:
    """A source range: lines are 1-based, columns 0-based character offsets (end exclusive)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Edit:
    """Replace `span` of the original file (of one cell for notebooks) by `text`."""

    span: Span
    text: str
    cell: int | None = None


@dataclass(frozen=True)
class Diagnostic:
    """One finding, located in the file the user sees (a cell of a notebook: `cell` is 1-based).

    `fix` is None when the rule has no automatic fix for this finding, else a short
    description of what the fix does; `applicability` says whether `gradlint fix` applies it
    by default ("safe") or only with --unsafe-fixes ("unsafe"), DESIGN §2.2.

    `edits` are the fix's edits in the file's own positions, computed once by the run that
    checked the file (None: no fix, or not computed), so reporters and editors never re-read or
    re-lint the file. `file_line` is the line of the file itself where the finding starts: the
    line of the `.ipynb` JSON holding the cell's line for notebooks (None: same as span.line).
    """

    code: str
    name: str
    message: str
    path: str
    span: Span
    cell: int | None = None
    severity: str = "error"
    fix: str | None = None
    applicability: str = "safe"
    source_line: str = ""
    url: str = ""
    edits: tuple[Edit, ...] | None = None
    file_line: int | None = None

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    @property
    def safe_fix(self) -> bool:
        """`gradlint fix` applies this finding's fix without --unsafe-fixes: the `[*]` mark."""
        return self.fix is not None and self.applicability == "safe"

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.span, self.code)


@dataclass
class FileResult:
    """What checking (or fixing) one file produced. `error` is a one-line message; `detail`
    is the traceback of an internal error (printed with --verbose or GRADLINT_DEBUG=1)."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None
    fixed: list[Diagnostic] = field(default_factory=list)
    fix_failures: list[str] = field(default_factory=list)
    diff: str = ""
    output: bytes | None = None  # the fixed file's bytes (fix mode, when something changed)
    detail: str | None = None
    config_error: bool = False  # `error` is that of the broken [tool.gradlint] above the file
    digest: str | None = None  # content hash of the bytes checked (for the cache)
    dependencies: dict[str, list] = field(default_factory=dict)  # modules whose summaries it used
    listing: list | None = None  # [project root, flat, fingerprint of its files] when it asked them all
