"""The document store: what the client has open, seen as gradlint documents.

A text document is one Python module; a notebook (LSP 3.17 notebook sync) is its cells, each a
text document of its own, read as one virtual module straight from the cells (no notebook JSON
is made unless a fix has to render one). A `Snapshot` freezes one version of either, with the
cell URIs that diagnostics and edits go to.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import Workspace

from gradlint.sources import Document
from gradlint.sources.document import split_lines
from gradlint.sources.python import PythonDocument

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Cell:
    uri: str
    text: str
    version: int | None
    code: bool = True  # a code cell (else markdown)
    language: str | None = None

    def as_nbformat(self) -> dict:
        if not self.code:
            return {"cell_type": "markdown", "metadata": {}, "source": self.text}
        metadata = {"vscode": {"languageId": self.language}} if self.language else {}
        return {"cell_type": "code", "metadata": metadata, "source": self.text}


@dataclass
class Snapshot:
    """One version of a text document or of a notebook (then `cells`, by 1-based number among
    all cells, as the notebook adapter numbers them)."""

    uri: str
    version: int | None
    path: str
    text: str = ""
    cells: dict[int, Cell] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        """What the analysis depends on (versions change only with the texts)."""
        if not self.cells:
            return (self.text,)
        return tuple((c.uri, c.text, c.code, c.language) for c in self.cells.values())

    def document(self) -> Document:
        if not self.cells:
            return PythonDocument(self.path, self.text)
        from gradlint.sources.notebook import NotebookDocument

        cells = [cell.as_nbformat() for cell in self.cells.values()]
        return NotebookDocument.from_cells(self.path, cells, self.metadata)

    def targets(self) -> list[str]:
        """The URIs diagnostics are published to."""
        return [cell.uri for cell in self.cells.values()] if self.cells else [self.uri]

    def target(self, cell: int | None) -> str | None:
        """The URI diagnostics and edits of `cell` (None: a text document) go to."""
        if cell is None:
            return None if self.cells else self.uri
        entry = self.cells.get(cell)
        return entry.uri if entry else None

    def cell_of(self, uri: str) -> int | None:
        return next((number for number, cell in self.cells.items() if cell.uri == uri), None)

    def lines(self, target: str) -> list[str]:
        """The lines (without endings) of the text behind a target URI."""
        if not self.cells:
            return lines_of(self.text)
        number = self.cell_of(target)
        return lines_of(self.cells[number].text) if number is not None else []

    def version_of(self, target: str) -> int | None:
        if not self.cells:
            return self.version
        number = self.cell_of(target)
        return self.cells[number].version if number is not None else None


class DocumentStore:
    """Maps URIs to file paths and owners, and snapshots documents from the pygls workspace."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def path_for(self, uri: str, suffix: str = ".py") -> str:
        """The file system path of a document, or a made-up one in the workspace for unsaved
        documents (it decides the configuration and appears in reports)."""
        try:
            path = to_fs_path(uri) if uri.startswith("file:") else None
        except Exception:
            path = None
        if path:
            return path if path.endswith(suffix) or suffix == ".py" else path + suffix
        root = self.workspace.root_path or os.getcwd()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "untitled"
        return os.path.join(root, name if name.endswith(suffix) else name + suffix)

    def owner_of(self, uri: str) -> str:
        """The URI whose analysis covers `uri`: the notebook for a cell, else itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def is_cell(self, uri: str) -> bool:
        return self.workspace.get_notebook_document(cell_uri=uri) is not None

    def open_owners(self) -> list[str]:
        """Every open Python document and notebook (cells are covered by their notebook)."""
        owners = list(self.workspace.notebook_documents)
        owners += [uri for uri in self.workspace.text_documents if not self.is_cell(uri) and self.is_python(uri)]
        return owners

    def is_python(self, uri: str) -> bool:
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return False
        return (document.language_id or "") == "python" or self.path_for(uri).endswith(PYTHON_SUFFIXES)

    def snapshot(self, owner: str) -> Snapshot | None:
        """The current version of `owner` (a notebook or a Python text document), else None."""
        notebook = self.workspace.get_notebook_document(notebook_uri=owner)
        if notebook is not None:
            return self._notebook(notebook)
        if owner not in self.workspace.text_documents or not self.is_python(owner):
            return None
        document = self.workspace.get_text_document(owner)
        return Snapshot(owner, document.version, self.path_for(owner), text=document.source)

    def _notebook(self, notebook: types.NotebookDocument) -> Snapshot:
        cells: dict[int, Cell] = {}
        for number, cell in enumerate(notebook.cells, start=1):
            document = self.workspace.text_documents.get(cell.document)
            cells[number] = Cell(
                cell.document,
                document.source if document is not None else "",
                document.version if document is not None else None,
                code=cell.kind == types.NotebookCellKind.Code,
                language=document.language_id if document is not None else None,
            )
        metadata = notebook.metadata if isinstance(notebook.metadata, dict) else {}
        path = self.path_for(notebook.uri, ".ipynb")
        return Snapshot(notebook.uri, notebook.version, path, cells=cells, metadata=metadata)


def lines_of(text: str) -> list[str]:
    """Lines as LSP and the ast count them: only \\n, \\r\\n and \\r end a line (not the form
    feeds and Unicode separators that str.splitlines also splits at)."""
    lines = split_lines(text)
    # Unlike split_lines, no empty piece after a final line break, as pygls counts a document's
    # lines (str.splitlines): position_from_client_units clamps a position past them to the end
    # of the last line, and the ignore action writes no directive after the final line break.
    if lines[-1] == "":
        lines.pop()
    return lines
