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
