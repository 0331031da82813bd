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
