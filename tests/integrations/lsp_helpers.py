"""What the language-server tests share: applying a WorkspaceEdit to a text, as a client does."""

from __future__ import annotations

from lsprotocol import types


def offset(text: str, position: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    if position.line >= len(lines):
        return len(text)
    return sum(len(line) for line in lines[: position.line]) + position.character  # ASCII texts


def apply(text: str, edits) -> str:
    for edit in sorted(edits, key=lambda e: offset(text, e.range.start), reverse=True):
        text = text[: offset(text, edit.range.start)] + edit.new_text + text[offset(text, edit.range.end) :]
    return text


def edits_for(edit: types.WorkspaceEdit, uri: str):
    if edit.document_changes:
        return [e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return (edit.changes or {}).get(uri, [])


def open_notebook(client, path, cells: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """Open a notebook as VS Code syncs one: `cells` are (kind "code" | "markdown", source);
    returns the notebook's URI and its cells' URIs."""
    notebook_uri = path.as_uri()
    uris = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(len(cells))]
    kinds = [types.NotebookCellKind.Code if kind == "code" else types.NotebookCellKind.Markup for kind, _ in cells]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=k, document=u) for k, u in zip(kinds, uris)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=u, language_id="python" if kind == "code" else "markdown", version=1, text=text)
                for u, (kind, text) in zip(uris, cells)
            ],
        )
    )
    return notebook_uri, uris


def change_cell(client, notebook_uri: str, version: int, cell_uri: str, cell_version: int, text: str) -> None:
    """Replace one cell's text, as a notebook client sends it."""
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=version, uri=notebook_uri),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cell_uri, version=cell_version),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                        )
                    ]
                )
            ),
        )
    )
