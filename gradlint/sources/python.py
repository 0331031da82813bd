"""Plain `.py` files: the virtual module is the file itself.

A script exported from a notebook (Colab's and Kaggle's downloads keep `!pip install ...` and
`%matplotlib inline`) is not Python as it stands: when the module does not parse, its IPython
lines are masked as a notebook cell's are (`gradlint.sources.ipython`) and the masked module is
read instead. Such a file is checked, never fixed (`partial`)."""

from __future__ import annotations

import io
import re
import tokenize

from gradlint.diagnostics import Span
from gradlint.sources.document import Document, SourceError, split_lines
from gradlint.sources.ipython import mask_cell

IPYTHON_LINE = re.compile(r"^[ \t]*[!%]", re.M)  # a shell escape or a magic starting a line


class PythonDocument(Document):
    def __init__(self, path: str, text: str, encoding: str = "utf-8", bom: bool = False):
        self.path = path
        self.text = text
        self.encoding = encoding
        self.bom = bom

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> "PythonDocument":
        if b"\x00" in data:
            raise SourceError("binary file (contains NUL bytes), not Python source")
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            raise SourceError(f"cannot detect encoding: {exc}") from None
        bom = encoding == "utf-8-sig"
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise SourceError(f"cannot decode as {encoding}: {exc.reason if hasattr(exc, 'reason') else exc}") from None
        return cls(path, text, "utf-8" if bom else encoding, bom)

    partial_reason = "the file holds IPython lines (`!`, `%`) and is read with them masked: no fix is made in it"

    @property
    def parsable_text(self) -> str:
        return self._masked if self.partial else self.text

    def without_cell_at(self, line: int) -> str | None:
        """The module with its IPython lines masked, once, when it has any."""
        if self.partial or not IPYTHON_LINE.search(self.text):
            return None
        dedent, lines = mask_cell(split_lines(self.text, keepends=True))
        if dedent:
            return None  # an indented first line is an error of the file, not a notebook's habit
        self._masked, self.partial = "".join(line.text for line in lines), True
        return self._masked

    def locate(self, span: Span) -> tuple[int | None, Span]:
        return None, span

    def render(self, new_text: str) -> bytes:
        data = new_text.encode(self.encoding)
        return (b"\xef\xbb\xbf" + data) if self.bom else data
