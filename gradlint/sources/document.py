"""The contract between file adapters and the rest of gradlint."""

from __future__ import annotations

import difflib
import re
from abc import ABC, abstractmethod

from gradlint.diagnostics import Edit, Span


LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """Lines as Python counts them: only \\n, \\r\\n and \\r end a line (str.splitlines also
    splits at form feeds and Unicode separators, which would shift every later line)."""
    if not keepends:
        return LINE_BREAK.split(text)
    ends = [m.end() for m in LINE_BREAK.finditer(text)]
    starts = [0, *ends]
    pieces = [text[a:b] for a, b in zip(starts, [*ends, len(text)])]
    return pieces if pieces[-1] else pieces[:-1]


class SourceError(Exception):
    """A file that cannot be read as source; the message is one line for the user."""


class Document(ABC):
    """A file seen as one virtual Python module (`text`), with the way back to the file.

    Rules and the fixer only ever see `text`; positions are mapped back with `locate`, and a
    fixed module is turned back into file bytes with `render`.
    """

    path: str
    text: str
    partial = False  # a cell that does not parse was left out: fixes are not made in the file
    partial_reason = "a cell of the notebook does not parse: no fix is made in it"

    @property
    def parsable_text(self) -> str:
        """`text` with the cells found not to parse emptied (lines kept)."""
        return self.text

    def without_cell_at(self, line: int) -> str | None:
        """`text` with the cell holding virtual `line` (and any left out before) emptied, lines
        kept, for a module one of whose cells does not parse; None where there are no cells."""
        return None

    @abstractmethod
    def locate(self, span: Span) -> tuple[int | None, Span]:
        """Map a span of `text` to (cell, span in that cell) of the file; cell None for .py."""

    @abstractmethod
    def render(self, new_text: str) -> bytes:
        """The file's bytes with the virtual module replaced by `new_text`."""

    def file_line(self, cell: int | None, line: int) -> int | None:
        """The line of the file itself holding `line` (of `cell`); None when that is `line`."""
        return None

    def source_line(self, line: int) -> str:
        """Line `line` (1-based) of the virtual module, without its newline."""
        if getattr(self, "_lines_of", None) is not self.text:
            self._lines, self._lines_of = split_lines(self.text), self.text
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""

    def diff(self, new_text: str) -> str:
        """A unified diff of the file between its current text and `new_text`."""
        return "".join(
            difflib.unified_diff(
                split_lines(self.text, keepends=True),
                split_lines(new_text, keepends=True),
                fromfile=f"a/{self.path.lstrip('/')}",
                tofile=f"b/{self.path.lstrip('/')}",
            )
        )

    def edits(self, new_text: str) -> list[Edit]:
        """Line-granular edits of the file turning `text` into `new_text`."""
        old_lines = split_lines(self.text, keepends=True)
        new_lines = split_lines(new_text, keepends=True)
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        edits = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            cell, span = self.locate(Span(i1 + 1, 0, i2 + 1, 0))
            edits.append(Edit(span, "".join(new_lines[j1:j2]), cell))
        return edits
