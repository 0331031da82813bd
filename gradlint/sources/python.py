"""Plain `.py` files: the virtual module is the file itself."""

from __future__ import annotations

import io
import tokenize

from gradlint.diagnostics import Span
from gradlint.sources.document import Document, SourceError


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

    def locate(self, span: Span) -> tuple[int | None, Span]:
        return None, span

    def render(self, new_text: str) -> bytes:
        data = new_text.encode(self.encoding)
        return (b"\xef\xbb\xbf" + data) if self.bom else data
