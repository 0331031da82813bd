"""The contract between file adapters and the rest of gradlint."""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod

from gradlint.diagnostics import Edit, Span


class SourceError(Exception):
    """A file that cannot be read as source; the message is one line for the user."""


class Document(ABC):
    """A file seen as one virtual Python module (`text`), with the way back to the file.

    Rules and the fixer only ever see `text`; positions are mapped back with `locate`, and a
    fixed module is turned back into file bytes with `render`.
    """

    path: str
    text: str

    @abstractmethod
    def locate(self, span: Span) -> tuple[int | None, Span]:
        """Map a span of `text` to (cell, span in that cell) of the file; cell None for .py."""

    @abstractmethod
    def render(self, new_text: str) -> bytes:
        """The file's bytes with the virtual module replaced by `new_text`."""

    def source_line(self, line: int) -> str:
        """Line `line` (1-based) of the virtual module, without its newline."""
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def diff(self, new_text: str) -> str:
        """A unified diff of the file between its current text and `new_text`."""
        return "".join(
            difflib.unified_diff(
                self.text.splitlines(keepends=True),
                new_text.splitlines(keepends=True),
                fromfile=f"a/{self.path.lstrip('/')}",
                tofile=f"b/{self.path.lstrip('/')}",
            )
        )

    def edits(self, new_text: str) -> list[Edit]:
        """Line-granular edits of the file turning `text` into `new_text`."""
        old_lines = self.text.splitlines(keepends=True)
        new_lines = new_text.splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        edits = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            cell, span = self.locate(Span(i1 + 1, 0, i2 + 1, 0))
            edits.append(Edit(span, "".join(new_lines[j1:j2]), cell))
        return edits
