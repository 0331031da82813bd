"""Jupyter notebooks (`.ipynb`): code cells <-> one virtual Python module.

The virtual module (`text`) is every analysed code cell's source, in notebook order, one after
the other, so a training loop in cell 7 sees the optimizer created in cell 3. It keeps lines 1:1
with the cells: virtual line N is exactly one line of one cell, and a position map gives
(cell, line in cell) for each virtual line.

What is left out of the virtual module (and so never reported on, never changed):

* markdown, raw and other non-code cells;
* a code cell whose first non-blank line is ``# gradlint: skip-cell``;
* a code cell run by a cell magic other than ``%%time``, ``%%timeit`` and ``%%capture``
  (``%%bash``, ``%%writefile``, ``%%html`` ... are not Python);
* a code cell whose VS Code language (``metadata.vscode.languageId``) is not Python;
* a code cell that does not parse as Python (Python 2, tabs mixed with spaces): found when the
  module is parsed, its lines are emptied (`without_cell_at`) and the notebook is `partial`:
  no fix is made in it, since its module cannot be rebuilt cell by cell;
* the whole notebook when its kernel is not Python (``metadata.language_info.name``, else
  ``metadata.kernelspec.language``): the module is then empty, so an R or Julia notebook is
  simply skipped, without an error (`skip_reason` says why).

IPython syntax (magics, shell escapes, help, automagics) is masked, never parsed as Python and
never changed: `gradlint.sources.ipython` says how. A masked line stays one virtual line, so
lines stay 1:1 with the cells; ``%time stmt`` keeps its statement, and `locate` shifts columns
back by the width of the magic. A cell whose first line is indented is dedented by that much, as
IPython runs it (columns are shifted back by `locate`, and lines a fix adds to such a cell get
the indentation back).

`render` writes a fixed module back: it aligns the old and new virtual lines, gives every
changed or inserted line to its cell, and splices the re-serialised ``source`` of the changed
cells, and nothing else, into the original file text at the exact offsets of their JSON values.
Outputs, metadata, execution counts, ids, key order, indentation and escapes everywhere else
stay byte-identical. A changed source array is written in the file's own style (see
`gradlint.sources.json_spans`). A fix that changes a masked (or ``%time``) line, spans two
cells, or moves code from one cell to another raises SourceError: the fixer drops such a fix.

Lines inserted at a cell boundary belong to the cell before the boundary (a statement added
after the last statement of cell 3 stays in cell 3); lines inserted before the first line of
the module belong to the first analysed cell.
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import re
import warnings
from collections import Counter
from dataclasses import dataclass, field

from gradlint.diagnostics import Edit, Span
from gradlint.sources.document import Document, SourceError, split_lines
from gradlint.sources.ipython import PYTHON, foreign_cell_magic, mask_cell
from gradlint.sources.json_spans import Style, item_starts, source_spans

__all__ = ["NotebookDocument"]

SKIP_CELL = re.compile(r"#\s*gradlint:\s*skip-cell\b")


# --------------------------------------------------------------------------------------------
# The document


UNPARSABLE = "does not parse as Python"


@dataclass
class _Cell:
    index: int  # 0-based among all cells; the number Jupyter shows is index + 1
    lines: list[str]  # the cell's lines as written, line endings kept
    ends_newline: bool
    dedent: str = ""  # the indentation IPython removes from a cell whose first line is indented
    first: int = 0  # index of its first line in the virtual module
    virtual: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class _Line:
    cell: _Cell
    line: int  # 0-based within the cell
    kind: int
    dedent: int = 0  # columns of cell indentation removed (see _Cell.dedent)
    indent: int = 0  # columns of indentation of the virtual line
    shift: int = 0  # columns a `%time` line lacks after its indentation

    @property
    def real(self) -> str:
        """The cell's line as written, with the newline the virtual module gives a last line."""
        text = self.cell.lines[self.line]
        return text if text.endswith(("\n", "\r")) else text + "\n"


class NotebookDocument(Document):
    """A Jupyter notebook seen as the virtual module of its analysed code cells."""

    def __init__(self, path: str, data: bytes, raw: str, notebook: dict, bom: bool):
        self.path = path
        self.data = data
        self.raw = raw
        self.notebook = notebook
        self.bom = bom
        self.skip_reason: str | None = None
        self.skipped_cells: dict[int, str] = {}  # cell number -> why it is not analysed
        self.cells: list[_Cell] = []
        self._lines: list[_Line] = []
        self._spans: list[tuple[int, int] | None] | None = None
        self.text = ""
        language = _kernel_language(notebook.get("metadata"))
        if language is not None and not _is_python(language):
            self.skip_reason = f"the kernel language is {language}, not Python"
            return
        self._build()

    # -- reading ---------------------------------------------------------------------------

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> "NotebookDocument":
        bom = data.startswith(b"\xef\xbb\xbf")
        try:
            raw = data[3:].decode("utf-8") if bom else data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceError(f"notebook is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        if not raw.strip():
            raise SourceError("invalid notebook: the file is empty")
        try:
            notebook = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SourceError(f"invalid notebook JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
        except RecursionError:
            raise SourceError("invalid notebook JSON: nested too deeply") from None
        _validate(notebook)
        return cls(path, data, raw, notebook, bom)

    @classmethod
    def from_cells(cls, path: str, cells: list[dict], metadata: dict | None = None) -> "NotebookDocument":
        """A notebook held in memory as cells (an editor's, an IPython session's), read without
        a JSON round trip; `cells` are nbformat cell dicts (`cell_type`, `source`, `metadata`).
        Its file text is made only if a fix asks for it (`render`)."""
        notebook = {"cells": cells, "metadata": metadata or {}, "nbformat": 4, "nbformat_minor": 5}
        _validate(notebook)
        return cls(path, b"", "", notebook, False)

    def _build(self) -> None:
        cells = self.notebook["cells"]
        text_parts: list[str] = []
        for index, cell in enumerate(cells):
            if cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            joined = source if isinstance(source, str) else "".join(source)
            lines = split_lines(joined, keepends=True)
            if not lines:
                continue
            reason = _skip_reason(cell, lines)
            if reason:
                self.skipped_cells[index + 1] = reason
                continue
            entry = _Cell(index, lines, joined.endswith(("\n", "\r")))
            entry.first = len(self._lines)
            self._mask(entry)
            self.cells.append(entry)
            text_parts.extend(entry.virtual)
        self.text = "".join(text_parts)

    def _mask(self, cell: _Cell) -> None:
        cell.dedent, masked = _masked(tuple(cell.lines))
        for number, line in enumerate(masked):
            cell.virtual.append(line.text)
            self._lines.append(_Line(cell, number, line.kind, line.dedent, line.indent, line.shift))

    def without_cell_at(self, line: int) -> str | None:
        """A cell that does not parse (Python 2, tabs mixed with spaces, a half-written cell)
        is left out of the analysis as other languages' cells are: its lines are emptied, so
        every other line keeps its place. Jupyter compiles each cell alone, so the cells that
        do not parse alone are the broken ones (a `def` without a body in one cell is reported
        at the next cell's first line); the cell holding `line` when each parses alone."""
        if not 0 < line <= len(self._lines):
            return None
        broken = [c for c in self.cells if c.number not in self.skipped_cells and not _parses("".join(c.virtual))]
        if not broken:
            cell = self._lines[line - 1].cell
            if cell.number in self.skipped_cells:
                return None  # emptied already: the error is elsewhere
            broken = [cell]
        for cell in broken:
            self.skipped_cells[cell.number] = UNPARSABLE
        self.partial = True
        return self.parsable_text

    @property
    def parsable_text(self) -> str:
        if not self.partial:
            return self.text
        return "".join(
            "".join("\n" for _ in c.virtual) if self.skipped_cells.get(c.number) == UNPARSABLE else "".join(c.virtual)
            for c in self.cells
        )

    # -- positions -------------------------------------------------------------------------

    def _position(self, line: int, column: int, cell: _Cell | None = None) -> tuple[_Cell, int, int]:
        """(cell, 1-based line in it, column) of a 1-based virtual position; a position in
        another cell than `cell` (or past the end) becomes the end of `cell`."""
        if 1 <= line <= len(self._lines):
            entry = self._lines[line - 1]
            if cell is None or entry.cell is cell:
                if entry.shift and column >= entry.indent:
                    column += entry.shift
                return entry.cell, entry.line + 1, column + entry.dedent
        if cell is None:
            cell = self._lines[0].cell if line < 1 else self._lines[-1].cell
            if line < 1:
                return cell, 1, 0
        return cell, len(cell.lines) + 1, 0

    def locate(self, span: Span) -> tuple[int | None, Span]:
        if not self._lines:
            return None, span
        cell, line, column = self._position(span.line, span.column)
        _, end_line, end_column = self._position(span.end_line, span.end_column, cell)
        return cell.number, Span(line, column, end_line, end_column)

    def file_line(self, cell: int | None, line: int) -> int | None:
        """The line of the .ipynb text holding the cell's line: exact when the source is stored
        one JSON string per line (as Jupyter writes it), else where the source starts."""
        if cell is None or not self.raw:  # made from cells: there is no file text
            return None
        spans = self._source_spans()
        if not 0 < cell <= len(spans) or spans[cell - 1] is None:
            return None
        starts = item_starts(self.raw, spans[cell - 1][0])
        offset = starts[min(max(line, 1), len(starts)) - 1]
        return self.raw.count("\n", 0, offset) + 1

    def source_line(self, line: int) -> str:
        if 1 <= line <= len(self._lines):
            entry = self._lines[line - 1]
            return entry.cell.lines[entry.line].rstrip("\r\n")
        return ""

    # -- writing ---------------------------------------------------------------------------

    def new_sources(self, new_text: str) -> dict[int, str]:
        """The new source text of each cell that `new_text` changes, by cell number.

        Raises SourceError when the change touches IPython syntax, spans cells, moves code
        from one cell to another, or cannot be placed in a cell."""
        if new_text == self.text:
            return {}
        if not self._lines:
            raise SourceError("the notebook has no analysed code cell to change")
        old = [line for cell in self.cells for line in cell.virtual]
        new = split_lines(new_text, keepends=True)
        by_cell: dict[int, list[str]] = {cell.index: [] for cell in self.cells}
        changed: set[int] = set()
        removed: dict[int, Counter] = {}
        added: dict[int, Counter] = {}
        for tag, i1, i2, j1, j2 in _opcodes(old, new):
            if tag == "equal":
                for k in range(i2 - i1):
                    entry = self._lines[i1 + k]
                    by_cell[entry.cell.index].append(entry.real)
                continue
            for entry in self._lines[i1:i2]:
                if entry.kind != PYTHON:
                    raise SourceError(
                        f"the fix changes IPython line {entry.line + 1} of cell {entry.cell.number}"
                    )
            owners = [self._lines[i].cell for i in range(i1, i2)]
            if tag == "insert":
                owner = self._lines[i1 - 1].cell if i1 > 0 else self._lines[0].cell
                pieces = [(owner, new[j1:j2])]
            elif len({cell.index for cell in owners}) == 1:
                pieces = [(owners[0], new[j1:j2])]
            elif tag == "delete" or i2 - i1 == j2 - j1:
                pieces = [(owner, new[j1 + k : j1 + k + 1] if tag == "replace" else []) for k, owner in enumerate(owners)]
            else:
                numbers = sorted({cell.number for cell in owners})
                raise SourceError(f"the fix spans cells {', '.join(map(str, numbers))}")
            for entry in self._lines[i1:i2]:
                removed.setdefault(entry.cell.index, Counter())[entry.cell.lines[entry.line].strip()] += 1
            for owner, lines in pieces:
                changed.add(owner.index)
                if owner.dedent:
                    lines = [owner.dedent + line if line.strip() else line for line in lines]
                by_cell[owner.index].extend(lines)
                added.setdefault(owner.index, Counter()).update(line.strip() for line in lines)
        _check_moves(removed, added, {cell.index: cell.number for cell in self.cells})
        result: dict[int, str] = {}
        for cell in self.cells:
            if cell.index not in changed:
                continue
            source = "".join(by_cell[cell.index])
            if not cell.ends_newline:  # drop the line end the virtual module gave the cell
                source = _drop_line_end(source)
            if source != "".join(cell.lines):
                result[cell.number] = source
        return result

    def render(self, new_text: str) -> bytes:
        sources = self.new_sources(new_text)
        if not self.raw:  # made from cells: serialise once, as Jupyter writes notebooks
            self.raw = json.dumps(self.notebook, indent=1, ensure_ascii=False) + "\n"
            self.data = self.raw.encode("utf-8", "surrogatepass")
        if not sources:
            return self.data
        spans = self._source_spans()
        style = Style(self.raw)
        pieces = []
        pos = 0
        cells = self.notebook["cells"]
        for number in sorted(sources):
            start, end = spans[number - 1]
            original = cells[number - 1]["source"]
            pieces.append(self.raw[pos:start])
            pieces.append(style.source(self.raw, start, end, original, sources[number]))
            pos = end
        pieces.append(self.raw[pos:])
        text = "".join(pieces)
        if not _reads_back(text, sources):  # pragma: no cover - a bug: never write such a file
            raise SourceError("internal error: the rewritten notebook does not read back")
        data = text.encode("utf-8", "surrogatepass")
        return b"\xef\xbb\xbf" + data if self.bom else data

    def diff(self, new_text: str) -> str:
        chunks = []
        for number, source in sorted(self.new_sources(new_text).items()):
            old = _diff_lines("".join(self.notebook["cells"][number - 1]["source"]))
            chunks.extend(
                difflib.unified_diff(
                    old,
                    _diff_lines(source),
                    fromfile=f"a/{self.path} (cell {number})",
                    tofile=f"b/{self.path} (cell {number})",
                )
            )
        return "".join(chunks)

    def edits(self, new_text: str) -> list[Edit]:
        edits = []
        for number, source in sorted(self.new_sources(new_text).items()):
            old_lines = split_lines("".join(self.notebook["cells"][number - 1]["source"]), keepends=True)
            new_lines = split_lines(source, keepends=True)
            matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag != "equal":
                    edits.append(Edit(Span(i1 + 1, 0, i2 + 1, 0), "".join(new_lines[j1:j2]), number))
        return edits

    def _source_spans(self) -> list[tuple[int, int] | None]:
        if self._spans is None:
            self._spans = source_spans(self.raw)
        return self._spans


# --------------------------------------------------------------------------------------------
# Helpers


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _validate(notebook: object) -> None:
    if not isinstance(notebook, dict):
        raise SourceError("invalid notebook: the top level is not a JSON object")
    version = notebook.get("nbformat")
    if "nbformat" not in notebook:
        raise SourceError("invalid notebook: no 'nbformat' field")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SourceError(f"invalid notebook: 'nbformat' is {version!r}, not a number")
    if version < 4:
        raise SourceError(
            f"nbformat {version} notebooks are not supported; convert with "
            "'jupyter nbconvert --to notebook --nbformat 4'"
        )
    if version > 4:
        raise SourceError(f"nbformat {version} notebooks are not supported (only nbformat 4)")
    if "cells" not in notebook:
        raise SourceError("invalid notebook: no 'cells' list")
    cells = notebook["cells"]
    if not isinstance(cells, list):
        raise SourceError("invalid notebook: 'cells' is not a list")
    if "metadata" in notebook and not isinstance(notebook["metadata"], dict):
        raise SourceError("invalid notebook: 'metadata' is not an object")
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise SourceError(f"invalid notebook: cell {number} is not an object")
        if not isinstance(cell.get("cell_type"), str):
            raise SourceError(f"invalid notebook: cell {number} has no 'cell_type'")
        if cell["cell_type"] != "code":
            continue
        if "source" not in cell:
            raise SourceError(f"invalid notebook: code cell {number} has no 'source'")
        source = cell["source"]
        if not isinstance(source, str) and not (
            isinstance(source, list) and all(isinstance(line, str) for line in source)
        ):
            raise SourceError(f"invalid notebook: the source of cell {number} is not text")
        if "metadata" in cell and not isinstance(cell["metadata"], dict):
            raise SourceError(f"invalid notebook: the metadata of cell {number} is not an object")


def _kernel_language(metadata: object) -> str | None:
    if not isinstance(metadata, dict):
        return None
    for key, field_name in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field_name), str) and section[field_name]:
            return section[field_name]
    return None


def _is_python(language: str) -> bool:
    return language.strip().lower().startswith(("python", "ipython"))


def _skip_reason(cell: dict, lines: list[str]) -> str | None:
    metadata = cell.get("metadata")
    if isinstance(metadata, dict):
        vscode = metadata.get("vscode")
        if isinstance(vscode, dict) and isinstance(vscode.get("languageId"), str):
            if not _is_python(vscode["languageId"]):
                return f"cell language is {vscode['languageId']}"
    first = next((line.strip() for line in lines if line.strip()), "")
    if SKIP_CELL.match(first):
        return "# gradlint: skip-cell"
    magic = foreign_cell_magic(first)
    if magic:
        return f"%%{magic} cell"
    return None


@functools.lru_cache(maxsize=4096)
def _masked(lines: tuple[str, ...]) -> tuple[str, tuple]:
    """`mask_cell`, remembered: an editor or an IPython session reads the same cells again and
    again as one of them changes."""
    dedent, masked = mask_cell(list(lines))
    return dedent, tuple(masked)


def _check_moves(removed: dict[int, Counter], added: dict[int, Counter], numbers: dict[int, int]) -> None:
    """Refuse a change that takes a statement out of one cell and puts it into another.

    Lines are compared without their indentation (a statement moved into a block is still the
    same statement); lines too plain to mean anything (blank, comments, brackets, `pass`,
    `else:` ...) are not compared."""
    empty: Counter = Counter()
    for source, lines in removed.items():
        for line, count in lines.items():
            if _plain(line) or count - added.get(source, empty)[line] <= 0:
                continue
            for target, new_lines in added.items():
                if target != source and new_lines[line] - removed.get(target, empty)[line] > 0:
                    raise SourceError(f"the fix moves code from cell {numbers[source]} to cell {numbers[target]}")


_PLAIN = frozenset({"pass", "else:", "try:", "finally:", "continue", "break", "return", "...", "except:"})


def _plain(line: str) -> bool:
    return not line or line.startswith("#") or line in _PLAIN or not any(c.isalnum() for c in line)


def _drop_line_end(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith(("\n", "\r")) else text


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes turning `old` into `new`, quicker for the usual small change in a long
    module: the common head and tail are matched first, difflib aligns only the middle."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(a=old[head : len(old) - tail], b=new[head : len(new) - tail], autojunk=False)
    codes = [("equal", 0, head, 0, head)] if head else []
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return codes


def _reads_back(text: str, sources: dict[int, str]) -> bool:
    try:
        cells = json.loads(text)["cells"]
        for number, source in sources.items():
            value = cells[number - 1]["source"]
            if (value if isinstance(value, str) else "".join(value)) != source:
                return False
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return True


def _diff_lines(source: str) -> list[str]:
    lines = split_lines(source, keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines
