"""File-kind adapters: each turns a file's bytes into one virtual Python module and back."""

from __future__ import annotations

from gradlint.sources.document import Document, SourceError
from gradlint.sources.python import PythonDocument

__all__ = ["Document", "SourceError", "load_document", "is_supported"]

NOTEBOOK_SUFFIX = ".ipynb"


def is_supported(path: str) -> bool:
    return path.endswith((".py", ".pyi", NOTEBOOK_SUFFIX))


def load_document(path: str, data: bytes) -> Document:
    """Build the document for `path` from its bytes; raises SourceError with a one-line reason."""
    if path.endswith(NOTEBOOK_SUFFIX):
        from gradlint.sources.notebook import NotebookDocument

        return NotebookDocument.from_bytes(path, data)
    return PythonDocument.from_bytes(path, data)
