"""`# gradlint: ignore[GL201]`, bare `# gradlint: ignore`, and `# noqa: GL201` comments."""

from __future__ import annotations

import re

DIRECTIVE = re.compile(
    r"#\s*(?:gradlint:\s*ignore(?P<gl>\[[^\]]*\])?|noqa(?P<noqa>\s*:\s*[A-Z0-9]+(?:[\s,]+[A-Z0-9]+)*)?)",
    re.IGNORECASE,
)
CODES = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


def suppressed(line: str, code: str) -> bool:
    """True when a comment on `line` silences `code` (bare directives silence every code)."""
    if "#" not in line:
        return False
    for match in DIRECTIVE.finditer(line):
        listed = match.group("gl") or match.group("noqa")
        if not listed:
            return True
        if any(code.upper().startswith(c.upper()) for c in CODES.findall(listed)):
            return True
    return False


def ignore_list(line: str) -> tuple[list[str], int, int] | None:
    """So a code can be added to it: the codes and columns of the line's `# gradlint: ignore[...]` list."""
    # The first such directive; (codes, start, end) with start:end inside the brackets, else None.
    if "#" not in line:
        return None
    for match in DIRECTIVE.finditer(line):
        if match.group("gl"):
            start, end = match.start("gl") + 1, match.end("gl") - 1  # inside the brackets
            return [c.strip() for c in line[start:end].split(",") if c.strip()], start, end
    return None
