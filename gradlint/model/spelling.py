"""Where a module's text spells a call of some names: the pre-filters that decide which lines
(and files) are parsed and read at all.

Python's `re` scans for a pattern's leading literal and tries a match only where it occurs; a
pattern that opens with `\\b` or a look-behind is tried at every position instead (10-25x
slower on real modules). So each name is followed, not preceded, by its word-boundary test."""

from __future__ import annotations

import re
from typing import Iterable

CALL = r"\s*\("


def spelled(names: Iterable[str], tail: str = CALL) -> re.Pattern[str]:
    """`name` + `tail` for any of `names`, not preceded by a word character (as `\\b` would);
    group 1 is the name."""
    alternatives = "|".join(f"{name}(?<!\\w{name})" for name in map(re.escape, names))
    return re.compile(f"({alternatives}){tail}")


def spelled_bytes(names: Iterable[str], tail: str = CALL) -> re.Pattern[bytes]:
    """`spelled` for a module's undecoded bytes."""
    return re.compile(spelled(names, tail).pattern.encode())
