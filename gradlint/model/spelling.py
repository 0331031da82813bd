"""Where a module's text spells a call of some names: the pre-filters that decide which lines
(and files) are parsed and read at all.

Python's `re` scans for a pattern's leading literal and tries a match only where it occurs; a
pattern that opens with `\\b` or a look-behind is tried at every position instead (10-25x
slower on real modules). So each name is followed, not preceded, by its word-boundary test."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

CALL = r"\s*\("
# A name right before a call's parenthesis, and the head of a dotted chain being called. Tried
# only at word starts and never backtracking into a word (possessive): a long run of word
# characters (a base64 blob in a string) costs its length, not its square.
CALLED_NAME = re.compile(r"\b(\w++)\s*\(")
CALLED_CHAIN = re.compile(r"\b(\w++)[\w.]*+\s*\(")
CALLED_NAME_BYTES = re.compile(CALLED_NAME.pattern.encode())


def spelled(names: Iterable[str], tail: str = CALL) -> re.Pattern[str]:
    """`name` + `tail` for any of `names`, not preceded by a word character (as `\\b` would);
    group 1 is the name."""
    return re.compile(_pattern(tuple(names), tail))


WORD_CHAR = re.compile(r"\w")
WORD_BYTE = re.compile(rb"\w")
CALL_TAIL = re.compile(CALL)
CALL_TAIL_BYTES = re.compile(CALL.encode())


def call_starts(text: str | bytes, names: Iterable[str], tail: re.Pattern | None = None) -> list[int]:
    """Offsets where one of `names` is spelled before `tail` and not after a word character (what
    `spelled(names, tail)` matches), found by plain substring search: a run asks
    thousands of different names, and compiling a pattern for each costs more than the search
    (re compiles in Python). `tail` is compiled once by the caller (a call's parenthesis by
    default)."""
    is_bytes = isinstance(text, bytes)
    word = WORD_BYTE if is_bytes else WORD_CHAR
    tail = tail or (CALL_TAIL_BYTES if is_bytes else CALL_TAIL)
    starts = set()
    for name in names:
        needle = name.encode() if is_bytes else name
        start = text.find(needle)
        while start >= 0:
            if not (start and word.match(text, start - 1)) and tail.match(text, start + len(needle)):
                starts.add(start)
            start = text.find(needle, start + 1)
    return sorted(starts)


class Words:
    """A trigger of literal words, with a pattern's `search`: a regex alternation of words
    (`cross_entropy|CrossEntropyLoss`) has no single leading literal, so `re` tries it at every
    position (~7x slower than one substring search per word on real modules)."""

    def __init__(self, *words: str):
        self.words = words

    def search(self, text: str) -> bool:
        return any(word in text for word in self.words)


def occurrences(text: str, words: Iterable[str]) -> Iterator[int]:
    """Every offset where one of `words` occurs, by substring search (no pattern to compile)."""
    for word in words:
        start = text.find(word)
        while start >= 0:
            yield start
            start = text.find(word, start + 1)


def _pattern(names: tuple[str, ...], tail: str) -> str:
    alternatives = "|".join(f"{name}(?<!\\w{name})" for name in map(re.escape, names))
    return f"({alternatives}){tail}"


def called_names(text: str) -> set[str]:
    """Every name the text calls (`step` of `optimizer.step(`): one pattern compiled once, where
    a pattern per set of names would be compiled again for every function and module."""
    return set(CALLED_NAME.findall(text))


def called_heads(text: str):
    """(head, offset) of each called dotted chain (`engine` of `engine.train(`)."""
    for match in CALLED_CHAIN.finditer(text):
        yield match.group(1), match.start()
