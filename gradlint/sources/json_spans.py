"""Offsets of values in a notebook's JSON text, and the file's own style for writing them back.

A fixed notebook is written by splicing new ``source`` values into the original text at the
exact offsets of the old ones, so everything else stays byte-identical. `source_spans` finds
those offsets; `Style` writes a source value the way the file writes its JSON: its existing
layout (indentation, separators, line endings) is reused, unchanged lines keep their original
JSON text (escapes included) and new strings are escaped the way the file escapes non-ASCII.

The scanner expects valid JSON (json.loads has read the file before it runs).
"""

from __future__ import annotations

import difflib
import json
import re

from gradlint.sources.document import split_lines

__all__ = ["Style", "source_spans", "item_starts"]

_JSON_WS = re.compile(r"[ \t\n\r]*")
_JSON_INDENT = re.compile(r"[ \t]*")  # the JSON whitespace a line can start with
_JSON_STRUCT = re.compile(r'["\[\]{}]')
_JSON_SCALAR_END = re.compile(r"[,\]}\s]")
_NON_ASCII_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u(?!00[0-7])[0-9a-fA-F]{4}")
_RARE_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def source_spans(text: str) -> list[tuple[int, int] | None]:
    """So only changed sources are rewritten: for each cell, the offsets of its `source` value."""
    start = _skip_ws(text, 0)
    cells_at = None
    for key, value_start, _ in _members(text, start):
        if key == "cells":
            cells_at = value_start  # the last one wins, as in json.loads
    spans: list[tuple[int, int] | None] = []
    for cell_start, _ in _elements(text, cells_at):
        found = None
        for key, value_start, value_end in _members(text, cell_start):
            if key == "source":
                found = (value_start, value_end)
        spans.append(found)
    return spans


def item_starts(text: str, start: int) -> list[int]:
    """So reports can point into the file: the offset of each line of the `source` value at
    `start` (one per list item; the string's own start when the source is one string)."""
    if text[start] != "[":
        return [start]
    return [item_start for item_start, _ in _elements(text, start)]


class Style:
    """So a rewritten source looks like the rest of the file: its indentation, newlines, escapes."""

    def __init__(self, raw: str):
        self.newline = "\r\n" if "\r\n" in raw else "\n"
        self.compact = "\n" not in raw.strip()
        start = _skip_ws(raw, 0) + 1
        self.unit = raw[start : _skip_ws(raw, start)].rpartition("\n")[2] or " "
        self.ensure_ascii = _escapes_non_ascii(raw, False)

    def string(self, value: str, ensure_ascii: bool) -> str:
        try:
            encoded = json.dumps(value, ensure_ascii=ensure_ascii)
            encoded.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates can only be written escaped
            encoded = json.dumps(value, ensure_ascii=True)
        return encoded

    def source(self, raw: str, start: int, end: int, original: str | list[str], new: str) -> str:
        """The JSON text of the `source` value `new`, replacing raw[start:end] (`original`)."""
        region = raw[start:end]
        ensure_ascii = _escapes_non_ascii(region, self.ensure_ascii)
        if isinstance(original, str):
            return self.string(new, ensure_ascii)
        new_items = _split_like(new, original)
        if not new_items:
            return "[]"
        elements = _elements(raw, start)
        if elements:
            opening = raw[start + 1 : elements[0][0]]
            closing = raw[elements[-1][1] : end - 1]
            if len(elements) > 1:
                separator = raw[elements[0][1] : elements[1][0]]
            elif "\n" in opening:
                separator = "," + opening
            else:
                separator = "," if self.compact else ", "
        elif self.compact:
            opening, closing, separator = "", "", ","
        else:
            line_start = raw.rfind("\n", 0, start) + 1
            key_indent = _JSON_INDENT.match(raw, line_start).group()
            opening = self.newline + key_indent + self.unit
            closing = self.newline + key_indent
            separator = "," + opening
        old_raw = [raw[s:e] for s, e in elements]
        matcher = difflib.SequenceMatcher(a=list(original), b=new_items, autojunk=False)
        out: list[str] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                out.extend(old_raw[i1:i2])
            else:
                out.extend(self.string(item, ensure_ascii) for item in new_items[j1:j2])
        return "[" + opening + separator.join(out) + closing + "]"


def _split_like(source: str, original: list[str]) -> list[str]:
    """`source` split into list items the way `original` was: nbformat uses str.splitlines,
    which also breaks at form feeds, U+2028 ...; other writers break only at line ends."""
    if any(_RARE_BREAKS.search(item, 0, len(item) - 1) for item in original):
        return split_lines(source, keepends=True)
    return source.splitlines(keepends=True)


def _escapes_non_ascii(text: str, default: bool) -> bool:
    """Whether `text` writes non-ASCII characters as \\uXXXX escapes (`default` if it has none)."""
    if not text.isascii():
        return False
    if _NON_ASCII_ESCAPE.search(text):
        return True
    return default


# --------------------------------------------------------------------------------------------
# Scanning


def _skip_ws(text: str, pos: int) -> int:
    return _JSON_WS.match(text, pos).end()


def _string_end(text: str, pos: int) -> int:
    """End offset of the JSON string starting at `pos` (outputs hold long ones: no regex)."""
    start = pos + 1
    while True:
        quote = text.index('"', start)
        before = quote - 1
        while text[before] == "\\":
            before -= 1
        if (quote - 1 - before) % 2 == 0:  # not escaped: an even run of backslashes before it
            return quote + 1
        start = quote + 1


def _value_end(text: str, pos: int) -> int:
    """End offset of the JSON value starting at `pos`."""
    char = text[pos]
    if char == '"':
        return _string_end(text, pos)
    if char not in "[{":
        match = _JSON_SCALAR_END.search(text, pos)
        return match.start() if match else len(text)
    depth = 0
    while True:
        match = _JSON_STRUCT.search(text, pos)
        if match is None:
            raise ValueError("unbalanced JSON")
        pos = match.start()
        char = text[pos]
        if char == '"':
            pos = _string_end(text, pos)
            continue
        depth += 1 if char in "[{" else -1
        pos += 1
        if depth == 0:
            return pos


def _members(text: str, pos: int):
    """(key, value start, value end) of the JSON object starting at `pos`."""
    pos = _skip_ws(text, pos + 1)
    if text[pos] == "}":
        return
    while True:
        key_end = _string_end(text, pos)
        key = json.loads(text[pos:key_end])
        pos = _skip_ws(text, key_end) + 1  # the colon
        start = _skip_ws(text, pos)
        end = _value_end(text, start)
        yield key, start, end
        pos = _skip_ws(text, end)
        if text[pos] == "}":
            return
        pos = _skip_ws(text, pos + 1)


def _elements(text: str, pos: int) -> list[tuple[int, int]]:
    """(start, end) of each element of the JSON array starting at `pos`."""
    spans = []
    pos = _skip_ws(text, pos + 1)
    if text[pos] == "]":
        return spans
    while True:
        end = _value_end(text, pos)
        spans.append((pos, end))
        pos = _skip_ws(text, end)
        if text[pos] == "]":
            return spans
        pos = _skip_ws(text, pos + 1)
