"""IPython syntax in notebook cells: recognised line by line and masked for the Python tools.

IPython syntax is masked, never parsed as Python and never changed. A masked line becomes
``<indent>pass  # <the original line>`` in the virtual module: ``pass`` is a statement that is
valid wherever the original line stood (also as the only line of an indented block), the
comment keeps the line recognisable in excerpts and unique for the diff that the notebook's
`render` does.

Masked: line magics (``%matplotlib inline``), cell magic lines (``%%time``), shell escapes
(``!pip install -q torch``, ``files = !ls``, ``x = %sx ls``), help (``?model``, ``model??``),
automagics that are not Python (``pip install x``, ``cd ..``), and the continuation lines of any
of these that end with a backslash. Only lines that start a logical line are candidates (not
lines inside brackets or triple-quoted strings). ``get_ipython()`` calls are plain Python and
stay as they are.

``%time stmt`` and ``%timeit [-n N -r R ...] stmt`` keep their statement analysable: the virtual
line is the statement alone (``<indent>stmt``), and the line records the width of the magic so
that positions can be shifted back; the line is protected all the same, a fix may not change it.
A cell whose first line is indented is dedented by that much, as IPython runs it.
"""

from __future__ import annotations

import re
import warnings
from typing import NamedTuple

__all__ = [
    "AUTOMAGICS",
    "MASKED",
    "PROTECTED",
    "PYTHON",
    "PYTHON_CELL_MAGICS",
    "MaskedLine",
    "foreign_cell_magic",
    "mask_cell",
]

# Cell magics whose body is Python run as usual; any other cell magic skips the cell.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture"})
# Line magics usable without the %, as IPython's automagic allows, when the line is not Python.
AUTOMAGICS = frozenset(
    """
    alias alias_magic autoawait autocall automagic autoreload bookmark cat cd clear colors conda
    config cp dhist dirs doctest_mode ed edit env gui history killbgscripts ldir less lf lk ll
    load load_ext loadpy logoff logon logstart logstate logstop ls lsmagic lx macro magic mamba
    man matplotlib micromamba mkdir more mv notebook page pastebin pdb pdef pdoc pfile pinfo
    pinfo2 pip popd pprint precision prun psearch psource pushd pwd pycat pylab qtconsole
    quickref recall rehashx reload_ext rep rerun reset reset_selective rm rmdir run save sc
    set_env store sx system tb time timeit unalias unload_ext who who_ls whos xdel xmode
    """.split()
)

# What a line of a cell is: Python, masked IPython, or a `%time` line whose statement is kept.
PYTHON, MASKED, PROTECTED = 0, 1, 2

_MASK = "pass  # "
_INDENT = re.compile(r"[ \t\f]*")
_ASSIGN_ESCAPE = re.compile(
    r"(?:[A-Za-z_][\w.]*(?:\[[^\]=]*\])?\s*,\s*)*[A-Za-z_][\w.]*(?:\[[^\]=]*\])?\s*,?\s*=\s*[!%]"
)
# `ls -la` and `cat = x` are Python: automagic never applies when an operator follows the name.
_AUTOMAGIC = re.compile(
    r"([A-Za-z_]\w*)[ \t]+(?![=(\[,:;+*/%&|^<>!~@]|\.[A-Za-z_]|(?:is|not|in|and|or|if|else|for)\b)\S"
)
_TIME_MAGIC = re.compile(r"%(?:time|timeit)(?:[ \t]+-(?:[nrp][ \t]*\d+|[tcqo]))*[ \t]+(?=\S)")
_CELL_MAGIC = re.compile(r"%%([A-Za-z_]\w*)")
_CODE_TOKEN = re.compile(r"""[#\\'"()\[\]{}]""")


class MaskedLine(NamedTuple):
    """One line of a cell as the virtual module has it, with what maps it back to the cell."""

    text: str  # the virtual line, line ending included
    kind: int  # PYTHON, MASKED or PROTECTED
    dedent: int  # columns of cell indentation removed (see mask_cell)
    indent: int  # columns of indentation of the virtual line
    shift: int  # columns a `%time` line lacks after its indentation


def foreign_cell_magic(line: str) -> str | None:
    """So non-Python cells are skipped: the name of the cell magic starting `line` if not Python."""
    magic = _CELL_MAGIC.match(line)
    if magic and magic.group(1) not in PYTHON_CELL_MAGICS:
        return magic.group(1)
    return None


def mask_cell(lines: list[str]) -> tuple[str, list[MaskedLine]]:
    """So a cell can be analysed as Python: (the indentation IPython removes, its lines masked)."""
    # `lines` keep their line endings; the last virtual line gets one if it has none.
    scanner = _LogicalLines()
    masked_indent: str | None = None  # indentation of a masked line continued by a backslash
    cell_dedent = ""
    first_code = next((i for i, line in enumerate(lines) if line.strip()), -1)
    if first_code >= 0:
        # Like IPython, run a cell whose first line is indented as if dedented by as much.
        cell_dedent = _INDENT.match(lines[first_code]).group()
    masked: list[MaskedLine] = []
    for number, line in enumerate(lines):
        ending = line[len(line.rstrip("\r\n")) :]
        if number == len(lines) - 1 and not ending:
            ending = "\n"
        body = line.rstrip("\r\n")
        dedent = len(cell_dedent) if cell_dedent and body.startswith(cell_dedent) else 0
        body = body[dedent:]
        indent = _INDENT.match(body).group()
        stripped = body[len(indent) :]
        if masked_indent is not None:
            kind, shift = MASKED, 0
            indent = masked_indent
        elif number == first_code and _CELL_MAGIC.match(stripped):
            kind, shift = MASKED, 0  # a cell magic of a Python cell (others are skipped)
        elif scanner.at_start:
            code_end = None
            if "?" in stripped:  # help (`model?`) only when the ? is code, not text
                probe = _LogicalLines()
                code_end = probe.feed(stripped)
                if not probe.at_start:
                    code_end = None
            kind, shift = _classify(stripped, code_end)
        else:
            kind, shift = PYTHON, 0
        if kind == MASKED:
            virtual = f"{indent}{_MASK}{stripped}{ending}"
            masked_indent = indent if body.endswith("\\") else None
        elif kind == PROTECTED:
            virtual = f"{indent}{stripped[shift:]}{ending}"
            scanner.feed(virtual)
        else:
            virtual = body + ending
            scanner.feed(virtual)
        masked.append(MaskedLine(virtual, kind, dedent, len(indent), shift))
    return cell_dedent, masked


class _LogicalLines:
    """Follows brackets, strings and backslash continuations across the lines of one cell, to
    tell whether a line starts a logical line (only there can IPython syntax appear)."""

    def __init__(self) -> None:
        self.depth = 0
        self.triple: str | None = None
        self.backslash = False

    @property
    def at_start(self) -> bool:
        return self.depth == 0 and self.triple is None and not self.backslash

    def feed(self, line: str) -> int:
        """Advance over `line`; returns where its code ends (its comment, if any, starts)."""
        body = line.rstrip("\r\n")
        self.backslash = False
        code_end = len(body)
        pos = 0
        quote: str | None = self.triple
        while True:
            if quote is not None:
                pos = self._string_end(body, pos, quote)
                if pos < 0:  # the string goes on past this line
                    if len(quote) == 3:
                        self.triple = quote
                    elif body.endswith("\\"):
                        self.backslash = True  # continued one-line string
                    return code_end
                quote = None
                self.triple = None
                continue
            match = _CODE_TOKEN.search(body, pos)
            if match is None:
                return code_end
            char = match.group()
            pos = match.end()
            if char == "#":
                return match.start()
            if char == "\\":
                if pos >= len(body):
                    self.backslash = True
                    return code_end
                pos += 1
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            else:
                quote = char * 3 if body.startswith(char * 3, match.start()) else char
                pos = match.start() + len(quote)

    @staticmethod
    def _string_end(body: str, pos: int, quote: str) -> int:
        while True:
            close = body.find(quote, pos)
            escape = body.find("\\", pos)
            if close < 0:
                return -1
            if 0 <= escape < close:
                pos = escape + 2
                continue
            return close + len(quote)


def _compiles(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences: not our business
            compile(code, "<ipython>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _classify(stripped: str, code_end: int | None) -> tuple[int, int]:
    """(kind, column offset) of a line that starts a logical line (its indentation removed).

    `code_end` is where its comment starts (None when the line was not scanned as Python)."""
    first = stripped[:1]
    if first == "%":
        if not stripped.startswith("%%"):
            match = _TIME_MAGIC.match(stripped)
            if match and _compiles(stripped[match.end() :].rstrip("\r\n")):
                return PROTECTED, match.end()
        return MASKED, 0
    if first in ("!", "?"):
        return MASKED, 0
    if first and first not in "#\r\n" and _ASSIGN_ESCAPE.match(stripped):
        return MASKED, 0
    if code_end is not None and stripped[:code_end].rstrip().endswith("?"):
        return MASKED, 0
    match = _AUTOMAGIC.match(stripped)
    if match and match.group(1) in AUTOMAGICS and not _compiles(stripped.rstrip("\r\n")):
        return MASKED, 0
    return PYTHON, 0
